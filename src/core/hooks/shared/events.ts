/**
 * The hook events rawr handles, without zod: the hooks' fast entry (src/cli/hooks/main.ts) checks the
 * command line before it loads anything heavy. input.ts re-exports these.
 */
export const HOOK_EVENTS = ['PreCompact', 'PostCompact', 'UserPromptSubmit', 'SessionStart', 'PostToolUse'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
export const isHookEvent = (s: string | undefined): s is HookEvent => (HOOK_EVENTS as readonly string[]).includes(s ?? '');

/** POSIX `/…` or Windows `C:\…` / `\\server\…`, without importing node:path (keeps input.ts pure). */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}
