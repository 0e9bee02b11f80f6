#!/usr/bin/env node
// `npm run --silent rawr -- …`: runs the compiled CLI, building it first on a fresh clone so the
// replay contract (docs/ARCHITECTURE.md#replay) works without a separate build step; `hooks … install` also
// bundles dist/ (the fast hook it installs). Build output goes to stderr
// so stdout stays pure JSON Lines.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');
const root = join(__dirname, '..');
const cli = join(root, 'out/src/cli/main.js');
if (!existsSync(cli)) {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root], { stdio: ['ignore', 2, 2] });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
// `hooks … install` writes the fast hook (dist/hook.js through its bash client, src/cli/hookCommand.ts):
// bundled here first when this checkout has no bundle yet.
if (process.argv[2] === 'hooks' && process.argv[4] === 'install' && !existsSync(join(root, 'dist/hook.js'))) {
  const bundle = spawnSync(process.execPath, [join(root, 'scripts/bundle.mjs')], { cwd: root, stdio: ['ignore', 2, 2] });
  if (bundle.status !== 0) process.exit(bundle.status ?? 1);
}
// npm runs a script in the package's folder; `hooks … install|uninstall` is about the folder it was
// typed in (`npm --prefix ~/rawr run rawr -- hooks claude install --write` from the project).
if (process.argv[2] === 'hooks' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
require(cli);
