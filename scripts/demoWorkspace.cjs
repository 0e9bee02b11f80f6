// The `npm start` demo workspace: a git repo with a README and a limiter spec, committed, so it starts
// clean (`git status` shows nothing: rawr's own settings for the demo live in the throw-away user
// profile, not in the workspace). Used by scripts/start.mjs; unit-tested (test/unit/demoWorkspace.test.ts).
'use strict';
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/**
 * Writes the demo files into `ws` (created if missing) and commits them. `extraFiles` maps relative paths
 * to contents (start.mjs adds the long design notes the scripted agent reads). Returns a note when git is
 * unavailable (the demo then runs without commit boundaries), else undefined.
 */
function createDemoWorkspace(ws, extraFiles = {}) {
  fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
  fs.writeFileSync(
    path.join(ws, 'README.md'),
    [
      '# rawr demo workspace',
      '',
      'A throw-away workspace created by `npm start` in the rawr repository.',
      '',
      'Open the Chat view (Ctrl+Alt+I) and type:',
      '',
      '    @rawr Build a token-bucket rate limiter with HTTP middleware, phase by phase.',
      '',
      'The model is **Rawr offline demo model (scripted, not a real LLM)**: a scripted server on loopback that',
      "plays a two-phase coding session through rawr's tools, whatever you type. Each file it writes and each",
      'command it runs asks you first (Allow / Skip). It commits phase 1 in the terminal, rawr compacts at that',
      'commit (heads-up → continuation packet → "Context compacted" → handoff), and the agent goes on.',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(ws, 'docs/limiter-spec.md'), '# Limiter spec\n\nCapacity 2, refill 1 token/s; answer 429 when the bucket is empty.\n');
  for (const [rel, text] of Object.entries(extraFiles)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  const git = (...a) => cp.execFileSync('git', a, { cwd: ws, stdio: 'pipe' });
  try {
    git('init', '-q', '-b', 'main');
    // The agent commits in the terminal: the repository needs an identity of its own.
    git('config', 'user.email', 'demo@rawr.invalid');
    git('config', 'user.name', 'rawr demo');
    git('config', 'commit.gpgsign', 'false');
    git('add', '.');
    git('commit', '-q', '-m', 'demo: initial commit');
  } catch (e) {
    return `note: could not make the demo workspace a git repo (${String(e.message).split('\n')[0]}); commit boundaries will not show.`;
  }
  return undefined;
}

module.exports = { createDemoWorkspace };
