/**
 * Codex runs a hook from `hooks.json` only when it is trusted; an untrusted hook is skipped without a
 * word. Trust is recorded in `$CODEX_HOME/config.toml` as
 *
 *   [hooks.state."<hooks.json path>:<event_snake>:<group index>:<hook index>"]
 *   trusted_hash = "sha256:<hex>"
 *
 * where the hash is SHA-256 over the canonical JSON (keys sorted, no spaces) of
 * `{event_name, matcher?, hooks: [{type: "command", command, timeout, async: false}]}` — the entries
 * Codex 0.171's "Trust all" writes (verified against the real CLI in test/agents/). config.toml is
 * edited through a real TOML parser and checked before it is written (applyTrust). Pure: no I/O.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };

// smol-toml is an ES module with a CommonJS build (its "require" export): loaded through that from this
// CommonJS output, typed from the same declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse } = require('smol-toml') as typeof SmolToml;
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

/** Tables and values as smol-toml parses them. */
type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** The key path of a line that is a table header (`[a."b".'c']  # note`), else undefined; parsed by the TOML parser itself. */
function headerPath(line: string): string[] | undefined {
  const t = line.trim();
  if (!t.startsWith('[') || t.startsWith('[[')) return undefined;
  let doc: unknown;
  try {
    doc = parse(t);
  } catch {
    return undefined;
  }
  const path: string[] = [];
  for (let cur = doc; isTable(cur);) {
    const keys = Object.keys(cur);
    if (keys.length === 0) return path;
    if (keys.length > 1) return undefined;
    path.push(keys[0]!);
    cur = cur[keys[0]!];
  }
  return undefined;
}

/** The key of a line that is one `key = value` on its own (any quoting), else undefined. */
function keyOfLine(line: string): string | undefined {
  if (line.trim().startsWith('[')) return undefined;
  try {
    const keys = Object.keys(parse(line));
    return keys.length === 1 ? keys[0] : undefined;
  } catch {
    return undefined;
  }
}

export type TrustResult = { ok: true; text: string; changed: number } | { ok: false; reason: string };

/**
 * `config` (the text of config.toml) with `hooks.state."<key>".trusted_hash` set for each entry. Through
 * a real TOML parser (smol-toml): the file must parse first (a malformed file is never "trusted"); what
 * it must mean afterwards is that document with the entries set; the edit keeps every other byte (an
 * existing `[hooks.state.…]` table, in any quoting, gets its trusted_hash line replaced; a new one is
 * appended); and the edited text must parse to exactly that meaning. Otherwise (an inline table, a
 * dotted key, anything a text edit cannot reach) nothing is written and the entries to add are shown.
 */
export function applyTrust(config: string, entries: TrustEntry[]): TrustResult {
  const merge = entries.map((e) => `[hooks.state.${tomlString(e.key)}]\ntrusted_hash = ${tomlString(e.hash)}`).join('\n\n');
  const refuse = (why: string): TrustResult => ({
    ok: false,
    reason: `${why}; nothing written. Add rawr's trust entries yourself (each hooks.state key with its trusted_hash):\n\n${merge}\n`,
  });
  let doc: Table;
  let expected: Table;
  try {
    doc = parse(config);
    expected = parse(config);
  } catch (err) {
    return refuse(`it is not valid TOML (${oneLine(err)})`);
  }
  if (doc.hooks !== undefined && !isTable(doc.hooks)) return refuse('its "hooks" is not a table');
  const state = isTable(doc.hooks) ? doc.hooks.state : undefined;
  if (state !== undefined && !isTable(state)) return refuse('its "hooks.state" is not a table');
  const current = (key: string) => (isTable(state) ? state[key] : undefined);
  const todo = entries.filter((e) => {
    const t = current(e.key);
    return !(isTable(t) && t.trusted_hash === e.hash);
  });
  if (todo.length === 0) return { ok: true, text: config, changed: 0 };
  const hooks = (expected.hooks ??= {}) as Table;
  const expState = (hooks.state ??= {}) as Table;
  let lines = config === '' ? [] : config.split('\n');
  for (const e of todo) {
    const existing = current(e.key);
    if (existing !== undefined && !isTable(existing)) return refuse(`hooks.state.${tomlString(e.key)} is not a table`);
    expState[e.key] = { ...(isTable(existing) ? existing : {}), trusted_hash: e.hash };
    const body = `trusted_hash = ${tomlString(e.hash)}`;
    if (existing === undefined) {
      if (lines.length && lines[lines.length - 1] !== '') lines.push('');
      lines.push(`[hooks.state.${tomlString(e.key)}]`, body, '');
      continue;
    }
    const at = lines.findIndex((l) => {
      const p = headerPath(l);
      return p !== undefined && p.length === 3 && p[0] === 'hooks' && p[1] === 'state' && p[2] === e.key;
    });
    if (at < 0) return refuse(`hooks.state.${tomlString(e.key)} is set in a form rawr does not edit (a dotted key or an inline table)`);
    let end = at + 1;
    while (end < lines.length && headerPath(lines[end]!) === undefined) end++;
    const hash = lines.slice(at + 1, end).findIndex((l) => keyOfLine(l) === 'trusted_hash');
    lines = hash >= 0 ? [...lines.slice(0, at + 1 + hash), body, ...lines.slice(at + 2 + hash)] : [...lines.slice(0, at + 1), body, ...lines.slice(at + 1)];
  }
  const text = lines.join('\n');
  let result: Table;
  try {
    result = parse(text);
  } catch (err) {
    return refuse(`the edited file would not be valid TOML (${oneLine(err)}; is [hooks] state an inline table?)`);
  }
  if (!isDeepStrictEqual(plain(result), plain(expected))) return refuse('the edited file would not mean what was intended');
  return { ok: true, text, changed: todo.length };
}

/** A parsed document in comparable form: smol-toml's tables have no prototype, and its dates compare by their TOML text. */
const plain = (v: unknown): unknown =>
  v instanceof Date
    ? { date: v.toISOString() }
    : Array.isArray(v)
      ? v.map(plain)
      : isTable(v)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
        : v;

const oneLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
