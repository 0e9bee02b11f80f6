// The `npm start` demo workspace: a git repo with a README and src/limiter.ts, committed, so it starts
// clean (`git status` shows nothing: rawr's own settings for the demo live in the throw-away user
// profile, not in the workspace). Used by scripts/start.mjs; unit-tested (test/unit/demoWorkspace.test.ts).
'use strict';
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/**
 * Writes the demo files into `ws` (created if missing) and commits them. Returns a note when git is
 * unavailable (the demo then runs without commit boundaries), else undefined.
 */
function createDemoWorkspace(ws) {
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'README.md'), [
    '# rawr demo workspace',
    '',
    'A throw-away workspace created by `npm start` in the rawr repository.',
    '',
    'Open the Chat view (Ctrl+Alt+I) and type:',
    '',
    '    @rawr Build a token-bucket rate limiter, phase by phase.',
    '',
    'The model is **Rawr offline demo model (scripted, not a real LLM)**: a scripted server on loopback that',
    'plays a 6-step session, whatever you type, so the golden path can be watched offline —',
    'heads-up → continuation packet → "Context compacted" → handoff → the agent continues.',
    '',
  ].join('\n'));
  fs.writeFileSync(path.join(ws, 'src/limiter.ts'), [
    '// The demo session "builds" this token-bucket rate limiter (the scripted model does not edit files).',
    'export class TokenBucket {',
    '  private tokens: number;',
    '  private last: number;',
    '  constructor(private readonly capacity: number, private readonly refillPerSecond: number, now: number) {',
    '    this.tokens = capacity;',
    '    this.last = now;',
    '  }',
    '  take(now: number): boolean {',
    '    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.refillPerSecond);',
    '    this.last = now;',
    '    if (this.tokens < 1) return false;',
    '    this.tokens -= 1;',
    '    return true;',
    '  }',
    '}',
    '',
  ].join('\n'));
  const git = (...a) => cp.execFileSync('git', a, { cwd: ws, stdio: 'pipe' });
  try {
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=demo@rawr.invalid', '-c', 'user.name=rawr demo', '-c', 'commit.gpgsign=false', 'add', '.');
    git('-c', 'user.email=demo@rawr.invalid', '-c', 'user.name=rawr demo', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'demo: initial commit');
  } catch (e) {
    return `note: could not make the demo workspace a git repo (${String(e.message).split('\n')[0]}); commit boundaries will not show.`;
  }
  return undefined;
}

module.exports = { createDemoWorkspace };
