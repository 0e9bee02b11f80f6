/**
 * The hook configuration rawr adds (Claude Code's `.claude/settings.json` and Codex's
 * `$CODEX_HOME/hooks.json` share the shape `{"hooks":{"<Event>":[{"matcher"?,"hooks":[{"type":
 * "command","command","timeout"}]}]}}`), and a merge that never loses what is there. Pure: the caller
 * reads and writes the file (configFile.ts).
 *
 * Merge by identity: an entry is rawr's when its command is a rawr entry point (the CLI `…/out/src/cli/
 * main.js`, the bundled `…rawr…/dist/cli.js`, its hooks entry `…rawr…/dist/hook.js` or that entry's bash
 * client `…/dist/hook.sh` (wherever it is), the extension's `rawr-hooks` launcher or a `rawr` binary)
 * followed by exactly `hooks <agent> <Event>`. Only such entries are updated in place (e.g. after rawr
 * moved) or de-duplicated; another tool's command is never changed, even one that ends in the same words.
 */
import { HOOK_EVENTS, type HookEvent } from './input';
import type { AgentId } from './store';

export interface HookCommand {
  type: 'command';
  command: string;
  timeout?: number;
}
export interface MatcherGroup {
  matcher?: string;
  hooks: HookCommand[];
}
export type HooksConfig = { hooks: Partial<Record<HookEvent, MatcherGroup[]>> };
export interface HookSpec {
  event: HookEvent;
  matcher?: string;
  timeout: number;
}

/** POSIX shell quoting, only when needed (both agents run hook commands through a shell). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Splits a command line into words (POSIX quoting: '…', "…" with \ escapes, \ outside quotes); null if unbalanced. */
export function shellWords(command: string): string[] | null {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return null;
      cur += command.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === '\\' && j + 1 < command.length && '"\\$`'.includes(command[j + 1]!)) j++;
        cur += command[j];
      }
      if (j >= command.length) return null;
      i = j;
      inWord = true;
    } else if (c === '\\' && i + 1 < command.length) {
      cur += command[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** A word that runs rawr: see the file comment. */
export function isRawrEntryPoint(word: string): boolean {
  const w = word.replace(/\\/g, '/');
  const base = w.slice(w.lastIndexOf('/') + 1);
  return (
    w.endsWith('/out/src/cli/main.js') ||
    (/\/dist\/(cli\.js|hook\.js)$/.test(w) && /rawr/i.test(w)) ||
    // the bash client wherever rawr sits (a checkout named anything): its command line (bash -p …/hook.sh
    // <node> hooks <agent> <Event>) is rawr's own
    /\/dist\/hook\.sh$/.test(w) ||
    /^rawr-hooks(\.cmd|\.sh)?$/.test(base) ||
    base === 'rawr'
  );
}

/** The event of one of rawr's own hook commands for `agent`, else undefined. */
export function rawrEventOf(command: unknown, agent: AgentId): HookEvent | undefined {
  if (typeof command !== 'string') return undefined;
  const words = shellWords(command);
  if (!words || words.length < 4) return undefined;
  const [h, a, e] = words.slice(-3);
  if (h !== 'hooks' || a !== agent || !(HOOK_EVENTS as readonly string[]).includes(e!)) return undefined;
  return words.slice(0, -3).some(isRawrEntryPoint) ? (e as HookEvent) : undefined;
}

/**
 * The start of a hook command that runs `entry` (a rawr CLI or hooks entry) with the Node binary `node`.
 * A hook makes no TLS connection, but Node reads the NODE_EXTRA_CA_CERTS bundle while it starts (+40 ms
 * per hook measured where it is set, as corporate setups do; Claude Code runs the steering hook before
 * every model request). The agents run a hook command through `sh -c` on POSIX, where an empty
 * assignment before the command turns it off for that process only; not on Windows (no POSIX shell).
 */
export function nodeCommandPrefix(node: string, entry: string, platform: NodeJS.Platform = process.platform): string {
  return `${platform === 'win32' ? '' : 'NODE_EXTRA_CA_CERTS= '}${shellQuote(node)} ${shellQuote(entry)}`;
}

/** `commandPrefix` e.g. `'/usr/bin/node' '/opt/rawr/out/src/cli/main.js'`; `hooks <agent> <Event>` is appended. */
export function hooksConfig(agent: AgentId, commandPrefix: string, specs: readonly HookSpec[]): HooksConfig {
  const hooks: HooksConfig['hooks'] = {};
  for (const s of specs) {
    hooks[s.event] = [
      {
        ...(s.matcher !== undefined ? { matcher: s.matcher } : {}),
        hooks: [{ type: 'command', command: `${commandPrefix} hooks ${agent} ${s.event}`, timeout: s.timeout }],
      },
    ];
  }
  return { hooks };
}

export type MergeResult =
  { ok: true; settings: Record<string, unknown>; added: HookEvent[]; updated: HookEvent[]; unchanged: HookEvent[] } | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Merges `config` into the parsed settings (not mutated). Keeps every other key, event and hook;
 * refuses (no change) when `settings` or its `hooks` / `hooks.<Event>` have a shape the agent would
 * not accept either.
 */
export function mergeHooks(existing: unknown, config: HooksConfig, agent: AgentId): MergeResult {
  if (!isObject(existing)) return { ok: false, reason: 'the file is not a JSON object' };
  const settings = structuredClone(existing);
  if (settings.hooks !== undefined && !isObject(settings.hooks)) return { ok: false, reason: '"hooks" in the file is not an object' };
  const hooks: Record<string, unknown> = isObject(settings.hooks) ? settings.hooks : {};
  const added: HookEvent[] = [];
  const updated: HookEvent[] = [];
  const unchanged: HookEvent[] = [];
  for (const [event, groups] of Object.entries(config.hooks) as Array<[HookEvent, MatcherGroup[]]>) {
    const wanted = groups[0]!.hooks[0]!;
    const current = hooks[event];
    if (current !== undefined && !Array.isArray(current)) return { ok: false, reason: `"hooks.${event}" in the file is not an array` };
    const list: unknown[] = current ?? [];
    let found = false;
    let changed = false;
    const emptied = new Set<unknown>();
    for (const group of list) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      const kept: unknown[] = [];
      for (const h of group.hooks) {
        if (isObject(h) && rawrEventOf(h.command, agent) === event) {
          if (found) {
            changed = true;
            continue;
          } // a duplicate rawr entry: dropped
          found = true;
          if (h.command !== wanted.command || h.type !== 'command') {
            h.command = wanted.command;
            h.type = 'command';
            changed = true;
          }
          if (wanted.timeout !== undefined && h.timeout !== wanted.timeout) {
            h.timeout = wanted.timeout;
            changed = true;
          }
        }
        kept.push(h);
      }
      if (kept.length === 0 && group.hooks.length > 0) emptied.add(group);
      group.hooks = kept;
    }
    const cleaned = list.filter((g) => !emptied.has(g)); // groups that held only a duplicate rawr entry
    if (!found) {
      cleaned.push(structuredClone(groups[0]!));
      added.push(event);
    } else if (changed) updated.push(event);
    else unchanged.push(event);
    hooks[event] = cleaned;
  }
  settings.hooks = hooks;
  return { ok: true, settings, added, updated, unchanged };
}

/** The events that have one of rawr's own entries for `agent` in parsed settings (none for a shape the agent would not accept). */
export function rawrEventsIn(settings: unknown, agent: AgentId): HookEvent[] {
  if (!isObject(settings) || !isObject(settings.hooks)) return [];
  const found = new Set<HookEvent>();
  for (const groups of Object.values(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g.hooks)) continue;
      for (const h of g.hooks) {
        const e = isObject(h) ? rawrEventOf(h.command, agent) : undefined;
        if (e) found.add(e);
      }
    }
  }
  return [...found];
}

/**
 * The settings without rawr's own entries for `agent` (not mutated): a group left empty is dropped, an
 * event left without groups too, and `hooks` when nothing is left in it. Every other entry is kept.
 */
export function removeRawrHooks(existing: Record<string, unknown>, agent: AgentId): Record<string, unknown> {
  const settings = structuredClone(existing);
  if (!isObject(settings.hooks)) return settings;
  const hooks = settings.hooks;
  let removed = false;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    let rawrs = false;
    const kept = groups.flatMap((g: unknown) => {
      if (!isObject(g) || !Array.isArray(g.hooks)) return [g];
      const left = g.hooks.filter((h: unknown) => !(isObject(h) && rawrEventOf(h.command, agent) !== undefined));
      if (left.length === g.hooks.length) return [g];
      rawrs = true;
      return left.length ? [{ ...g, hooks: left }] : [];
    });
    if (!rawrs) continue; // none of rawr's: the person's, even an empty list
    removed = true;
    if (kept.length) hooks[event] = kept;
    else delete hooks[event];
  }
  if (removed && Object.keys(hooks).length === 0) delete settings.hooks;
  return settings;
}

/** Claude Code: PreCompact / PostCompact for every trigger, SessionStart only after a compaction. */
export const CLAUDE_HOOKS: readonly HookSpec[] = [
  { event: 'PreCompact', matcher: '', timeout: 30 },
  { event: 'PostCompact', matcher: '', timeout: 10 },
  { event: 'SessionStart', matcher: 'compact', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 10 },
  // The golden path's heads-up (claude/golden.ts) reaches the model through the next tool result.
  { event: 'PostToolUse', matcher: '', timeout: 10 },
];
/** Codex: no matchers (rawr filters SessionStart's source itself); PreCompact reads the rollout and runs git. */
export const CODEX_HOOKS: readonly HookSpec[] = [
  { event: 'PreCompact', timeout: 30 },
  { event: 'PostCompact', timeout: 10 },
  { event: 'SessionStart', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 10 },
];
