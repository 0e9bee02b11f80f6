/**
 * The hook configuration for `.claude/settings.json`, and a merge that never loses what is there.
 * Pure: the caller reads and writes the file.
 *
 * rawr's entries are recognised by their command ending in `hooks claude <Event>`; a re-install
 * replaces such a command in place (e.g. after rawr moved) and adds nothing twice.
 */
import { HOOK_EVENTS, type HookEvent } from './input';

export interface HookCommand { type: 'command'; command: string; timeout?: number }
export interface MatcherGroup { matcher?: string; hooks: HookCommand[] }
export type HooksConfig = { hooks: Record<HookEvent, MatcherGroup[]> };

/** PreCompact: every trigger (manual and auto); SessionStart: only after a compaction; UserPromptSubmit: no matcher. */
const MATCHERS: Record<HookEvent, string | undefined> = { PreCompact: '', SessionStart: 'compact', UserPromptSubmit: undefined };
/** Seconds. PreCompact reads the transcript and runs git; the others only read small files. */
const TIMEOUTS: Record<HookEvent, number> = { PreCompact: 30, SessionStart: 10, UserPromptSubmit: 10 };

const RAWR_COMMAND_RE = new RegExp(`\\shooks\\s+claude\\s+(${HOOK_EVENTS.join('|')})\\s*$`);
export const rawrEventOf = (command: unknown): HookEvent | undefined =>
  typeof command === 'string' ? (RAWR_COMMAND_RE.exec(command)?.[1] as HookEvent | undefined) : undefined;

/** POSIX shell quoting, only when needed (Claude Code runs hook commands through a shell). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `commandPrefix` e.g. `'/usr/bin/node' '/opt/rawr/out/src/cli/main.js'`; the event is appended. */
export function hooksConfig(commandPrefix: string): HooksConfig {
  const hooks = {} as Record<HookEvent, MatcherGroup[]>;
  for (const event of ['PreCompact', 'SessionStart', 'UserPromptSubmit'] as const) {
    const matcher = MATCHERS[event];
    hooks[event] = [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command: `${commandPrefix} hooks claude ${event}`, timeout: TIMEOUTS[event] }] }];
  }
  return { hooks };
}

export type MergeResult =
  | { ok: true; settings: Record<string, unknown>; added: HookEvent[]; updated: HookEvent[]; unchanged: HookEvent[] }
  | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Merges `config` into the parsed settings (not mutated). Keeps every other key, event and hook;
 * refuses (no change) when `settings` or its `hooks` / `hooks.<Event>` have a shape Claude Code would
 * not accept either.
 */
export function mergeHooks(existing: unknown, config: HooksConfig): MergeResult {
  if (!isObject(existing)) return { ok: false, reason: 'the settings file is not a JSON object' };
  const settings = structuredClone(existing);
  if (settings.hooks !== undefined && !isObject(settings.hooks)) return { ok: false, reason: '"hooks" in the settings file is not an object' };
  const hooks: Record<string, unknown> = isObject(settings.hooks) ? settings.hooks : {};
  const added: HookEvent[] = [];
  const updated: HookEvent[] = [];
  const unchanged: HookEvent[] = [];
  for (const [event, groups] of Object.entries(config.hooks) as Array<[HookEvent, MatcherGroup[]]>) {
    const wanted = groups[0]!.hooks[0]!;
    const current = hooks[event];
    if (current !== undefined && !Array.isArray(current)) return { ok: false, reason: `"hooks.${event}" in the settings file is not an array` };
    const list: unknown[] = current ?? [];
    let found = false;
    let changed = false;
    const emptied = new Set<unknown>();
    for (const group of list) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      const kept: unknown[] = [];
      for (const h of group.hooks) {
        if (isObject(h) && rawrEventOf(h.command) === event) {
          if (found) { changed = true; continue; } // a duplicate rawr entry: dropped
          found = true;
          if (h.command !== wanted.command || h.type !== 'command') { h.command = wanted.command; h.type = 'command'; changed = true; }
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
