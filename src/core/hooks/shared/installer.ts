/**
 * `install` for both agents, used by the CLI (`rawr hooks <agent> install`) and by the extension's
 * "Rawr: Install … hooks" commands: merge rawr's hook entries into the agent's file (configFile.ts
 * rules: symlinks explicit, mode kept, read-only refused, atomic, backup; the JSON edited in place by
 * jsonEdit.ts, so untouched values keep their text), and for Codex the trust entries (codex/trust.ts).
 */
import * as path from 'node:path';
import { readConfigFile, writeConfigFile, type ConfigFile } from './configFile';
import { editJson } from './jsonEdit';
import { CLAUDE_HOOKS, CODEX_HOOKS, hooksConfig, mergeHooks, type HooksConfig } from './hooksConfig';
import { applyTrust, rawrTrustEntries } from '../codex/trust';

export interface InstallResult {
  ok: boolean;
  /** Human-readable lines (stdout when ok, stderr when not). */
  lines: string[];
  /** The hook configuration (what --write would merge). */
  config: HooksConfig;
}

/** writeConfigFile, its refusal (read-only) or failure as a reason. */
function tryWrite(f: ConfigFile, text: string): { ok: true; backup?: string } | { ok: false; reason: string } {
  try {
    return { ok: true, ...writeConfigFile(f, text) };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

const summary = (m: { added: string[]; updated: string[]; unchanged: string[] }) =>
  [
    m.added.length ? `added ${m.added.join(', ')}` : '',
    m.updated.length ? `updated ${m.updated.join(', ')}` : '',
    m.unchanged.length ? `already present: ${m.unchanged.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');

async function mergeInto(
  file: string,
  config: HooksConfig,
  agent: 'claude' | 'codex',
  followSymlinks: boolean,
  within: string | undefined,
): Promise<{ ok: true; line: string; merged: Record<string, unknown>; target: string } | { ok: false; line: string }> {
  const read = await readConfigFile(file, { followSymlinks, ...(within !== undefined ? { within } : {}) });
  if (!read.ok) return { ok: false, line: `${read.reason}` };
  let existing: unknown = {};
  if (read.file.text !== undefined && read.file.text.trim() !== '') {
    try {
      existing = JSON.parse(read.file.text);
    } catch (err) {
      return {
        ok: false,
        line: `${read.file.target} is not valid JSON (${(err as Error).message}); fix it or merge this by hand:\n${JSON.stringify(config, null, 2)}`,
      };
    }
  }
  const merged = mergeHooks(existing, config, agent);
  if (!merged.ok) return { ok: false, line: `${read.file.target}: ${merged.reason}; nothing written` };
  // The file's own text, edited where the merge changed something (numbers and layout kept as written).
  const edited = editJson(read.file.text ?? '', existing, merged.settings);
  if (!edited.ok) return { ok: false, line: `${read.file.target}: ${edited.reason}; nothing written. Merge this by hand:\n${JSON.stringify(config, null, 2)}` };
  let backup: string | undefined;
  if (edited.text !== read.file.text) {
    const w = tryWrite(read.file, edited.text);
    if (!w.ok) return { ok: false, line: w.reason };
    backup = w.backup;
  }
  const via = read.file.followedFrom ? ` (through the symlink ${read.file.followedFrom})` : '';
  return {
    ok: true,
    merged: merged.settings,
    target: read.file.target,
    line: `${read.file.target}${via}: ${summary(merged)}${backup ? `; previous version kept in ${backup}` : ''}`,
  };
}

export async function installClaude(o: { projectDir: string; commandPrefix: string; write: boolean; followSymlinks: boolean }): Promise<InstallResult> {
  const config = hooksConfig('claude', o.commandPrefix, CLAUDE_HOOKS);
  if (!o.write) return { ok: true, lines: [JSON.stringify(config, null, 2)], config };
  const r = await mergeInto(path.join(o.projectDir, '.claude', 'settings.json'), config, 'claude', o.followSymlinks, o.projectDir);
  return { ok: r.ok, lines: [`rawr: Claude Code hooks in ${r.line}`], config };
}

export const CODEX_TRUST_NOTE = 'Codex runs only hooks it trusts and skips the others without a word.';

export async function installCodex(o: {
  codexHome: string;
  commandPrefix: string;
  write: boolean;
  trust: boolean;
  followSymlinks: boolean;
}): Promise<InstallResult> {
  const config = hooksConfig('codex', o.commandPrefix, CODEX_HOOKS);
  const hooksPath = path.join(o.codexHome, 'hooks.json');
  if (!o.write) {
    return {
      ok: true,
      config,
      lines: [
        JSON.stringify(config, null, 2),
        `# ${CODEX_TRUST_NOTE} --write merges this into ${hooksPath}; --write --trust also trusts rawr's hooks in ${path.join(o.codexHome, 'config.toml')}.`,
      ],
    };
  }
  const r = await mergeInto(hooksPath, config, 'codex', o.followSymlinks, undefined);
  if (!r.ok) return { ok: false, lines: [`rawr: Codex hooks: ${r.line}`], config };
  const lines = [`rawr: Codex hooks in ${r.line}`];
  const entries = rawrTrustEntries(hooksPath, r.merged);
  if (!o.trust) {
    lines.push(
      `rawr: ${CODEX_TRUST_NOTE} Trust rawr's ${entries.length} hooks: run again with --trust (writes their [hooks.state] entries into ${path.join(o.codexHome, 'config.toml')}), or choose "Trust all" when Codex asks at its next start.`,
    );
    return { ok: true, lines, config };
  }
  const tomlPath = path.join(o.codexHome, 'config.toml');
  const read = await readConfigFile(tomlPath, { followSymlinks: o.followSymlinks });
  if (!read.ok) return { ok: false, lines: [...lines, `rawr: Codex trust: ${read.reason}`], config };
  const applied = applyTrust(read.file.text ?? '', entries);
  if (!applied.ok) return { ok: false, lines: [...lines, `rawr: Codex trust in ${read.file.target}: ${applied.reason}`], config };
  let backup: string | undefined;
  if (applied.changed > 0) {
    const w = tryWrite(read.file, applied.text);
    if (!w.ok) return { ok: false, lines: [...lines, `rawr: Codex trust: ${w.reason}`], config };
    backup = w.backup;
  }
  lines.push(
    `rawr: Codex trust in ${read.file.target}: ${applied.changed ? `${applied.changed} of rawr's ${entries.length} hooks newly trusted` : `rawr's ${entries.length} hooks already trusted`}${backup ? `; previous version kept in ${backup}` : ''}`,
  );
  return { ok: true, lines, config };
}
