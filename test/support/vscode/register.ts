/**
 * Mocha `--require` hook of the unit tier (test/.mocharc.json): `require('vscode')` resolves to the shim
 * in ./index, so the extension host's modules (Turn, Session, Participant, …) load and run without VS
 * Code. Not for src/core, src/cli or src/server: they must never need vscode (core-purity.test.ts loads
 * them to prove it), so from there the module stays unresolvable.
 */
import Module = require('node:module');
import * as path from 'node:path';

const shim = require.resolve('./index');
const vscodeFree = [`${path.sep}src${path.sep}core${path.sep}`, `${path.sep}src${path.sep}cli${path.sep}`, `${path.sep}src${path.sep}server${path.sep}`];

type Resolve = (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
const mod = Module as unknown as { _resolveFilename: Resolve };
const original = mod._resolveFilename;
mod._resolveFilename = function (request, parent, ...rest) {
  if (request === 'vscode' && !vscodeFree.some((dir) => parent?.filename?.includes(dir))) return shim;
  return original.call(this, request, parent, ...rest);
};
