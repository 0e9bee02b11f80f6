/**
 * Codex runs a hook from `hooks.json` only when it is trusted; an untrusted hook is skipped without a
 * word. Trust is recorded in `$CODEX_HOME/config.toml` as
 *
 *   [hooks.state."<hooks.json path>:<event_snake>:<group index>:<hook index>"]
 *   trusted_hash = "sha256:<hex>"
 *
 * where the hash is SHA-256 over the canonical JSON (keys sorted, no spaces) of
 * `{event_name, matcher?, hooks: [{type: "command", command, timeout, async: false}]}` — the entries
 * Codex 0.171's "Trust all" writes (verified against the real CLI in test/agents/). Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import { rawrEventOf } from '../shared/hooksConfig';

export const snakeEvent = (event: string) => event.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();

const canon = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canon)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
        )
      : v;

export function hookTrustHash(eventSnake: string, command: string, timeoutSec: number, matcher?: string): string {
  const id: Record<string, unknown> = { event_name: eventSnake, hooks: [{ type: 'command', command, timeout: timeoutSec, async: false }] };
  if (matcher !== undefined) id.matcher = matcher;
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(canon(id)))
    .digest('hex')}`;
}

export interface TrustEntry {
  key: string;
  hash: string;
}

/** The trust entries for rawr's own hooks in a parsed hooks.json at `hooksPath`. */
export function rawrTrustEntries(hooksPath: string, hooksJson: unknown): TrustEntry[] {
  const out: TrustEntry[] = [];
  const hooks = (hooksJson as { hooks?: Record<string, unknown> } | null)?.hooks;
  if (!hooks || typeof hooks !== 'object') return out;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((g: { matcher?: unknown; hooks?: unknown }, gi) => {
      if (!g || !Array.isArray(g.hooks)) return;
      g.hooks.forEach((h: { command?: unknown; timeout?: unknown; timeout_sec?: unknown }, hi) => {
        if (!h || rawrEventOf(h.command, 'codex') !== event) return;
        const t = typeof h.timeout === 'number' ? h.timeout : typeof h.timeout_sec === 'number' ? h.timeout_sec : 600;
        const matcher = typeof g.matcher === 'string' ? g.matcher : undefined;
        out.push({
          key: `${hooksPath}:${snakeEvent(event)}:${gi}:${hi}`,
          hash: hookTrustHash(snakeEvent(event), h.command as string, Math.max(1, t), matcher),
        });
      });
    });
  }
  return out;
}

/** A TOML basic string. */
const tomlString = (s: string) =>
  `"${[...s]
    .map((c) => {
      const code = c.charCodeAt(0);
      if (c === '\\' || c === '"') return `\\${c}`;
      return code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, '0')}` : c;
    })
    .join('')}"`;

/**
 * `config` with a `[hooks.state."<key>"]` table per entry (an existing table of the same key is
 * replaced, everything else kept byte for byte). Refuses when the key appears in another form (a
 * dotted key or inline table) that a text edit cannot replace safely.
 */
export function applyTrust(config: string, entries: TrustEntry[]): { ok: true; text: string; changed: number } | { ok: false; reason: string } {
  let lines = config.split('\n');
  let changed = 0;
  for (const e of entries) {
    const header = `[hooks.state.${tomlString(e.key)}]`;
    const body = `trusted_hash = ${tomlString(e.hash)}`;
    const at = lines.findIndex((l) => l.trim() === header);
    if (at >= 0) {
      let end = at + 1;
      while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
      const table = lines.slice(at + 1, end);
      if (table.some((l) => l.trim() === body)) continue; // already trusted with this hash
      const kept = table.filter((l) => !/^\s*trusted_hash\s*=/.test(l));
      lines = [...lines.slice(0, at + 1), body, ...kept, ...lines.slice(end)];
      changed++;
      continue;
    }
    if (lines.some((l) => l.includes(tomlString(e.key)))) {
      return { ok: false, reason: `${e.key} is already configured in a form rawr does not edit; add trusted_hash = "${e.hash}" to it by hand` };
    }
    if (lines.length && lines[lines.length - 1] !== '') lines.push('');
    lines.push(header, body, '');
    changed++;
  }
  return { ok: true, text: lines.join('\n'), changed };
}
