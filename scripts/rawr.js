#!/usr/bin/env node
// `npm run --silent rawr -- …`: runs the compiled CLI, building it first on a fresh clone so the
// replay contract (docs/ARCHITECTURE.md#replay) works without a separate build step. Build output goes to stderr
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
require(cli);
