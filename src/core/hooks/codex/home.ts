/**
 * Where Codex keeps its hooks, trust entries and sessions for this user: `$CODEX_HOME`, else `$HOME/.codex`
 * (what Codex itself reads). The one answer for the CLI (`rawr hooks codex …`), the editor's Install/Remove
 * Codex Hooks and the follow view, so install, uninstall and discovery never disagree about the folder.
 */
import * as path from 'node:path';

/** Codex's home under `env`; undefined when neither CODEX_HOME nor HOME says where (rawr does not guess then). */
export function codexHome(env: Record<string, string | undefined>): string | undefined {
  if (env.CODEX_HOME) return path.resolve(env.CODEX_HOME);
  return env.HOME ? path.join(env.HOME, '.codex') : undefined;
}
