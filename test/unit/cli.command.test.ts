/**
 * One reading of the command line for both entry points (issue 32): the CLI (src/cli/main.ts) and the
 * installed hooks' bundle (src/cli/hooks/entry.ts) switch on readCommand, so a hook event, the resident
 * engine, the hooks' other commands and the rest mean the same thing whichever entry runs them.
 */
import * as assert from 'node:assert/strict';
import { RESIDENT_FLAG, readCommand } from '../../src/cli/hooks/command';

describe('the rawr command line, read once for the CLI and the hook bundle', () => {
  it('a hook event is what the agents run; anything else under hooks is the hooks command', () => {
    assert.deepEqual(readCommand(['hooks', 'claude', 'PreCompact']), { kind: 'hookEvent', hookArgs: ['claude', 'PreCompact'] });
    assert.deepEqual(readCommand(['hooks', 'codex', 'SessionStart', '--x']), { kind: 'hookEvent', hookArgs: ['codex', 'SessionStart', '--x'] });
    assert.deepEqual(readCommand(['hooks', 'claude', 'install', '--write']), { kind: 'hooks', hookArgs: ['claude', 'install', '--write'] });
    // Not an event of either agent: the hooks command explains (usage), not a silent hook run.
    assert.deepEqual(readCommand(['hooks', 'claude', 'precompact']), { kind: 'hooks', hookArgs: ['claude', 'precompact'] });
    assert.deepEqual(readCommand(['hooks', 'cursor', 'PreCompact']), { kind: 'hooks', hookArgs: ['cursor', 'PreCompact'] });
  });

  it('the resident engine needs its client folder; without one it is an ordinary (unknown) command', () => {
    assert.deepEqual(readCommand([RESIDENT_FLAG, '/dist']), { kind: 'hookServer', clientDir: '/dist' });
    assert.deepEqual(readCommand([RESIDENT_FLAG]), { kind: 'cli', args: [RESIDENT_FLAG] });
  });

  it('everything else is the CLI', () => {
    assert.deepEqual(readCommand(['replay', 'x.jsonl', '--json']), { kind: 'cli', args: ['replay', 'x.jsonl', '--json'] });
    assert.deepEqual(readCommand([]), { kind: 'cli', args: [] });
  });
});
