/**
 * The stable command the agents' hook entries run: `<globalStorage>/bin/rawr-hooks`, a small POSIX
 * shell script rewritten on every activation to point at this version's bundled CLI (`dist/cli.js`)
 * and the Node runtime of this extension host; `hooks …` runs the small hooks entry beside it
 * (`dist/hook.js`, src/cli/hooks/entry.ts) when that version has one. The hook entries in `.claude/settings.json` and
 * `$CODEX_HOME/hooks.json` name only the launcher, so they keep working after the extension updates
 * (the next activation re-points it). Between an update and the next activation the old version's
 * folder may be gone: the script then uses the newest installed rawr next to it.
 * See docs/ARCHITECTURE.md#claude-code-and-codex-hooks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shellQuote } from '../../core/hooks/shared/hooksConfig';

export const LAUNCHER_NAME = 'rawr-hooks';

export interface LauncherTarget {
  /** Folder holding the launcher (the extension's global storage). */
  storageDir: string;
  /** This version's extension folder (holds dist/cli.js). */
  extensionPath: string;
  /** `publisher.name` of the extension, for the fallback search among installed versions. */
  extensionId: string;
  /** The runtime of this extension host (Electron's binary run as Node, or Node itself). */
  runtime: string;
}

export function launcherScript(t: LauncherTarget): string {
  const cli = path.join(t.extensionPath, 'dist', 'cli.js');
  const siblings = path.join(path.dirname(t.extensionPath), `${t.extensionId.toLowerCase()}-*`);
  return [
    '#!/bin/sh',
    '# rawr agent-hook launcher: rewritten by the Rawr extension on every activation (do not edit).',
    `RAWR_CLI=${shellQuote(cli)}`,
    `RAWR_RUNTIME=${shellQuote(t.runtime)}`,
    'if [ ! -f "$RAWR_CLI" ]; then',
    '  # the extension was updated and its old folder removed before it was activated again',
    `  for c in ${shellQuote(path.dirname(siblings))}/${path.basename(siblings)}/dist/cli.js; do [ -f "$c" ] && RAWR_CLI=$c; done`,
    'fi',
    '# hook events run the small hooks entry beside the CLI (dist/hook.js) when this version has one',
    'if [ "$1" = hooks ] && [ -f "${RAWR_CLI%/*}/hook.js" ]; then RAWR_CLI=${RAWR_CLI%/*}/hook.js; fi',
    '# a hook makes no TLS connection; Node would read this bundle on every start (src/cli/hooks.ts)',
    'if [ "$1" = hooks ]; then unset NODE_EXTRA_CA_CERTS; fi',
    '# and, where bash is, goes through its bash client (dist/hook.sh), which asks the resident engine first',
    "# (-p: the caller's BASH_ENV, SHELLOPTS and exported functions stay out of it)",
    'if [ "$1" = hooks ] && [ -f "${RAWR_CLI%/*}/hook.sh" ] && [ -x /bin/bash ]; then',
    '  if [ -x "$RAWR_RUNTIME" ]; then ELECTRON_RUN_AS_NODE=1 exec /bin/bash -p "${RAWR_CLI%/*}/hook.sh" "$RAWR_RUNTIME" "$@"; fi',
    '  exec /bin/bash -p "${RAWR_CLI%/*}/hook.sh" node "$@"',
    'fi',
    'if [ -x "$RAWR_RUNTIME" ]; then ELECTRON_RUN_AS_NODE=1 exec "$RAWR_RUNTIME" "$RAWR_CLI" "$@"; fi',
    'exec node "$RAWR_CLI" "$@"',
    '',
  ].join('\n');
}

/** Writes (or re-points) the launcher; returns its path. Unchanged content is not rewritten. */
export function ensureLauncher(t: LauncherTarget): string {
  const dir = path.join(t.storageDir, 'bin');
  const file = path.join(dir, LAUNCHER_NAME);
  const text = launcherScript(t);
  fs.mkdirSync(dir, { recursive: true });
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== text) {
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text, { mode: 0o755 });
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, file);
  }
  return file;
}
