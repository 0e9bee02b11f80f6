import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeShellCommand, detectShellBoundaries, shellJoin } from '../../src/core/signals/shell';
import { needShared } from '../support/sharedData';

interface Case {
  name: string;
  command: string;
  exitCode: number | undefined;
  output: string;
  /** `kind key`; keys derived from the command hash are written `cmd:#`. */
  expect: string[];
}

function found(c: Pick<Case, 'command' | 'exitCode' | 'output'>): string[] {
  return detectShellBoundaries(c).map((b) => `${b.kind} ${b.key.replace(/cmd:[0-9a-f]{8}/, 'cmd:#')}`);
}

// ───────── outputs as git / gh print them ─────────

const CLAUDE_HEREDOC_COMMIT = `git add .beads/ && git commit -m "$(cat <<'EOF'
feat: transcript + terminal annotations with message references (spotter-gqc)

Add source-aware annotations that can originate from either terminal or
transcript text selections. Annotations now persist durable message
references via AnnotationMessageRef, enabling reliable reconnection to
transcript context during review.

Key changes:
- Annotation resource gains :source attribute (:terminal/:transcript)
  with nullable coordinates for transcript-only selections
- New AnnotationMessageRef resource links annotations to ordered
  transcript messages with unique constraint
- TranscriptRenderer prefers DB message id over JSONL uuid
- JS TranscriptSelection hook captures text selection with message IDs
- SessionLive handles both selection sources, persists refs on save,
  and provides source-aware highlight behavior (xterm vs scroll+highlight)
- UI shows source badges and message counts on annotation cards

Co-Authored-By: Claude Opus 4.6 <[REDACTED_EMAIL]>
EOF
)" && git status`;

const CLAUDE_HEREDOC_COMMIT_OUTPUT = `[spotter-gqc 99b497c] feat: transcript + terminal annotations with message references (spotter-gqc)
 12 files changed, 794 insertions(+), 15 deletions(-)
 create mode 100644 lib/spotter/transcripts/annotation_message_ref.ex
 create mode 100644 priv/repo/migrations/20260211203856_add_annotation_message_refs_and_source.exs
On branch spotter-gqc
nothing to commit, working tree clean`;

const CLAUDE_COMMIT_AND_PUSH = `git add lib/spotter/transcripts/annotation.ex priv/repo/migrations/20260211205820_add_state_to_annotations.exs .beads/ && git commit -m "$(cat <<'EOF'
feat: add annotation open/closed lifecycle state (spotter-gqc.4)

Annotations now have a :state attribute (:open/:closed) defaulting to
:open, with a dedicated :close action for transitioning state. Adds
composite index on (session_id, state) for efficient project-level
review queries.

Co-Authored-By: Claude Opus 4.6 <[REDACTED_EMAIL]>
EOF
)" && git push 2>&1`;

const CLAUDE_COMMIT_AND_PUSH_OUTPUT = `[spotter-gqc ceff8c3] feat: add annotation open/closed lifecycle state (spotter-gqc.4)
 4 files changed, 231 insertions(+), 1 deletion(-)
 create mode 100644 priv/repo/migrations/20260211205820_add_state_to_annotations.exs
To github.com:marot/spotter.git
   99b497c..ceff8c3  spotter-gqc -> spotter-gqc`;

const OTEL_COMMIT = `git add -A && git commit -m "feat: add OTEL dependencies, bootstrap, and safe runtime defaults

- Add opentelemetry_api, opentelemetry, opentelemetry_exporter, 
  opentelemetry_bandit, opentelemetry_phoenix, opentelemetry_ash dependencies
- Create Spotter.Telemetry.Otel module for safe, idempotent OTEL initialization
- Wire OTEL startup into Spotter.Application before supervisor children

Co-Authored-By: Claude Opus 4.6 <[REDACTED_EMAIL]>"`;

const NOTHING_TO_COMMIT = `On branch main
Your branch is up to date with 'origin/main'.

nothing to commit, working tree clean`;

const NO_CHANGES_ADDED = `On branch feature/login
Changes not staged for commit:
  (use "git add <file>..." to update what will be committed)
  (use "git restore <file>..." to discard changes in working directory)
\tmodified:   src/auth.ts

no changes added to commit (use "git add" and/or "git commit -a")`;

const NEW_BRANCH_PUSH = `remote: 
remote: Create a pull request for 'spotter-gqc' on GitHub by visiting:        
remote:      https://github.com/marot/spotter/pull/new/spotter-gqc        
remote: 
To github.com:marot/spotter.git
 * [new branch]      spotter-gqc -> spotter-gqc
branch 'spotter-gqc' set up to track 'origin/spotter-gqc'.`;

const NO_UPSTREAM = `Exit code 128
fatal: The current branch spotter-gqc has no upstream branch.
To push the current branch and set the remote as upstream, use

    git push --set-upstream origin spotter-gqc

To have this happen automatically for branches without a tracking
upstream, see 'push.autoSetupRemote' in 'git help config'.`;

const REJECTED_PUSH = `To github.com:acme/web.git
 ! [rejected]        main -> main (fetch first)
error: failed to push some refs to 'github.com:acme/web.git'
hint: Updates were rejected because the remote contains work that you do not
hint: have locally.`;

const PR_CREATED = `
Creating pull request for feat/lmstudio into main in acme/chatbot-ui

https://github.com/acme/chatbot-ui/pull/128
`;

const CASES: Case[] = [
  // ───────── commits that happened ─────────
  {
    name: 'Claude Code heredoc message, then git status prints "nothing to commit" (verbatim)',
    command: CLAUDE_HEREDOC_COMMIT,
    exitCode: 0,
    output: CLAUDE_HEREDOC_COMMIT_OUTPUT,
    expect: ['commit 99b497c'],
  },
  {
    name: 'Claude Code heredoc commit && git push (verbatim)',
    command: CLAUDE_COMMIT_AND_PUSH,
    exitCode: 0,
    output: CLAUDE_COMMIT_AND_PUSH_OUTPUT,
    expect: ['commit ceff8c3', 'pr_checkpoint push:99b497c..ceff8c3'],
  },
  {
    name: 'bare heredoc commit with 2>&1 (verbatim)',
    command: `git commit -m "$(cat <<'EOF'
feat: integrate highlight.js for transcript code blocks (spotter-fum.3)

Add syntax highlighting to code blocks in the transcript panel using
highlight.js with a light GitHub-style theme. Includes a LiveView hook
for idempotent highlighting on mount/update and conditional pre/code
rendering for code-mode rows.

Co-Authored-By: Claude Opus 4.6 <[REDACTED_EMAIL]>
EOF
)" 2>&1`,
    exitCode: 0,
    output:
      '[spotter-fum 331f337] feat: integrate highlight.js for transcript code blocks (spotter-fum.3)\n 5 files changed, 118 insertions(+), 4 deletions(-)',
    expect: ['commit 331f337'],
  },
  {
    name: 'multi-line double-quoted message (verbatim)',
    command: OTEL_COMMIT,
    exitCode: 0,
    output:
      '[spotter-4te 12e2d10] feat: add OTEL dependencies, bootstrap, and safe runtime defaults\n 8 files changed, 118 insertions(+), 1 deletion(-)\n create mode 100644 lib/spotter/telemetry/otel.ex',
    expect: ['commit 12e2d10'],
  },
  {
    name: 'heredoc body with unbalanced parentheses',
    command: `git commit -m "$(cat <<'EOF'
fix: parser edge cases

1) unbalanced ) in list
2) stray ( too
EOF
)"`,
    exitCode: 0,
    output: '[main 4b5c6d7] fix: parser edge cases\n 1 file changed, 3 insertions(+)',
    expect: ['commit 4b5c6d7'],
  },
  {
    name: 'cd && git add -A && git commit',
    command: 'cd /home/user/projects/temp/chatbot-ui && git add -A && git commit -m "feat: wire LM Studio endpoint"',
    exitCode: 0,
    output: '[main 0a1b2c3] feat: wire LM Studio endpoint\n 3 files changed, 41 insertions(+), 12 deletions(-)',
    expect: ['commit 0a1b2c3'],
  },
  {
    name: 'git -C dir commit -am',
    command: 'git -C packages/core commit -am "chore: bump version"',
    exitCode: 0,
    output: '[main 7d8e9f0] chore: bump version\n 1 file changed, 1 insertion(+), 1 deletion(-)',
    expect: ['commit 7d8e9f0'],
  },
  {
    name: 'git -c k=v -c k=v commit, root commit',
    command: 'git init -q && git -c user.name=Bot -c user.email=bot@example.com commit --allow-empty -m "init"',
    exitCode: 0,
    output: '[main (root-commit) 1a2b3c4] init',
    expect: ['commit 1a2b3c4'],
  },
  {
    name: 'env VAR=… git commit',
    command: 'env GIT_AUTHOR_DATE="2024-01-01T00:00:00" GIT_COMMITTER_DATE="2024-01-01T00:00:00" git commit -m "chore: backdate"',
    exitCode: 0,
    output: '[main 2b3c4d5] chore: backdate\n 1 file changed, 2 insertions(+)',
    expect: ['commit 2b3c4d5'],
  },
  {
    name: 'VAR=… prefix and quiet commit: no summary line, exit 0',
    command: 'GIT_COMMITTER_NAME=ci git commit -qm "quiet one"',
    exitCode: 0,
    output: '',
    expect: ['commit cmd:#'],
  },
  {
    name: 'commit with output discarded, exit 0',
    command: 'git add -A && git commit -m "wip" > /dev/null 2>&1',
    exitCode: 0,
    output: '',
    expect: ['commit cmd:#'],
  },
  {
    name: 'bash -lc "…" string (Codex style)',
    command: `bash -lc "git add -A && git commit -m 'feat: add lmstudio provider'"`,
    exitCode: 0,
    output: '[main 3c4d5e6] feat: add lmstudio provider\n 4 files changed, 88 insertions(+), 9 deletions(-)',
    expect: ['commit 3c4d5e6'],
  },
  {
    name: "bash -c '…' with cd",
    command: `bash -c 'cd app && git commit -m "fix: null check"'`,
    exitCode: 0,
    output: '[develop 5e6f7a8] fix: null check\n 1 file changed, 1 insertion(+)',
    expect: ['commit 5e6f7a8'],
  },
  {
    name: 'Codex argv as JSON (["bash","-lc","…"])',
    command: JSON.stringify(['bash', '-lc', 'git add -A && git commit -m "feat: stream LM Studio responses"']),
    exitCode: 0,
    output: '[main 6f7a8b9] feat: stream LM Studio responses\n 2 files changed, 30 insertions(+), 4 deletions(-)',
    expect: ['commit 6f7a8b9'],
  },
  {
    name: 'Codex argv joined with shellJoin',
    command: shellJoin(['bash', '-lc', "git commit -m 'fix: don'\\''t drop chunks'"]),
    exitCode: 0,
    output: "[main 7a8b9c0] fix: don't drop chunks\n 1 file changed, 2 insertions(+)",
    expect: ['commit 7a8b9c0'],
  },
  {
    name: 'Codex 0.104 exec_command output framing',
    command: 'git commit -m "test: cover push queue"',
    exitCode: 0,
    output:
      'Chunk ID: 4f1c2a\nWall time: 0.0512 seconds\nProcess exited with code 0\nOriginal token count: 31\nOutput:\n[feat/queue 8b9c0d1] test: cover push queue\n 1 file changed, 57 insertions(+)\n',
    expect: ['commit 8b9c0d1'],
  },
  {
    name: 'detached HEAD',
    command: 'git commit -m "experiment"',
    exitCode: 0,
    output: '[detached HEAD 9c0d1e2] experiment\n 1 file changed, 1 insertion(+)',
    expect: ['commit 9c0d1e2'],
  },
  {
    name: 'message from stdin heredoc that mentions git push',
    command: `git commit -F - <<'EOF'
feat: release script

Runs git push --tags after git commit.
EOF`,
    exitCode: 0,
    output: '[main 0d1e2f3] feat: release script\n 1 file changed, 12 insertions(+)',
    expect: ['commit 0d1e2f3'],
  },
  {
    name: 'newline-separated script',
    command: 'git add src/\ngit commit -m "refactor: split module"\ngit log --oneline -1',
    exitCode: 0,
    output: '[main 1e2f3a4] refactor: split module\n 2 files changed, 80 insertions(+), 75 deletions(-)\n1e2f3a4 refactor: split module',
    expect: ['commit 1e2f3a4'],
  },
  {
    name: '; separated',
    command: 'git add . ; git commit -m "docs: readme" ; git status --short',
    exitCode: 0,
    output: '[main 2f3a4b5] docs: readme\n 1 file changed, 5 insertions(+)',
    expect: ['commit 2f3a4b5'],
  },
  {
    name: '|| fallback not taken',
    command: 'git commit -m "style: format" || echo "commit failed"',
    exitCode: 0,
    output: '[main 3a4b5c6] style: format\n 6 files changed, 20 insertions(+), 20 deletions(-)',
    expect: ['commit 3a4b5c6'],
  },
  {
    name: 'piped through tail',
    command: 'git commit -m "chore: deps" 2>&1 | tail -5',
    exitCode: 0,
    output: '[main 4b5c6d8] chore: deps\n 2 files changed, 300 insertions(+), 280 deletions(-)',
    expect: ['commit 4b5c6d8'],
  },
  {
    name: 'time / timeout / nohup / absolute path wrappers',
    command: 'time timeout 60 nohup /usr/bin/git commit -m "perf: cache"',
    exitCode: 0,
    output: '[main 5c6d7e9] perf: cache\n 1 file changed, 9 insertions(+)\n\nreal\t0m0.041s',
    expect: ['commit 5c6d7e9'],
  },
  {
    name: 'quoted command name',
    command: '"git" commit -m "fix: quoting"',
    exitCode: 0,
    output: '[main 6d7e8fa] fix: quoting',
    expect: ['commit 6d7e8fa'],
  },
  {
    name: 'inside if … then … fi',
    command: 'if git commit -m "feat: guard"; then echo committed; fi',
    exitCode: 0,
    output: '[main 7e8f9ab] feat: guard\n 1 file changed, 4 insertions(+)\ncommitted',
    expect: ['commit 7e8f9ab'],
  },
  {
    name: 'subshell ( cd … && git commit )',
    command: '( cd services/api && git commit -m "fix(api): 404 on empty id" )',
    exitCode: 0,
    output: '[main 8f9a0bc] fix(api): 404 on empty id',
    expect: ['commit 8f9a0bc'],
  },
  {
    name: '--no-verify',
    command: 'git add -A && git commit --no-verify -m "wip: skip hooks"',
    exitCode: 0,
    output: '[spotter-4te 9a0b1cd] wip: skip hooks\n 3 files changed, 10 insertions(+)',
    expect: ['commit 9a0b1cd'],
  },
  {
    name: '--fixup makes a new commit',
    command: 'git commit --fixup=abc1234',
    exitCode: 0,
    output: '[main 0b1c2de] fixup! feat: login form\n 1 file changed, 1 deletion(-)',
    expect: ['commit 0b1c2de'],
  },
  {
    name: 'attached -am"msg"',
    command: 'git commit -am"fix: typo"',
    exitCode: 0,
    output: '[main 1c2d3ef] fix: typo\n 1 file changed, 1 insertion(+), 1 deletion(-)',
    expect: ['commit 1c2d3ef'],
  },
  {
    name: 'message mentions --amend and --dry-run (they are the -m value)',
    command: 'git commit -m "--amend is not used here" --author "A <a@example.com>" -- notes.md',
    exitCode: 0,
    output: '[main 2d3e4f0] --amend is not used here',
    expect: ['commit 2d3e4f0'],
  },
  {
    name: 'comment line before the commit',
    command: '# commit the work\ngit commit -m "feat: done"  # then push later',
    exitCode: 0,
    output: '[main 3e4f5a1] feat: done',
    expect: ['commit 3e4f5a1'],
  },
  {
    name: 'two commits in one command',
    command: 'git commit -m "feat: a" -- a.ts && git commit -m "feat: b" -- b.ts',
    exitCode: 0,
    output: '[main 4f5a6b2] feat: a\n 1 file changed, 1 insertion(+)\n[main 5a6b7c3] feat: b\n 1 file changed, 1 insertion(+)',
    expect: ['commit 4f5a6b2', 'commit 5a6b7c3'],
  },
  {
    name: 'commit in a loop prints several summary lines',
    command: 'for f in a.ts b.ts; do git add "$f" && git commit -m "add $f"; done',
    exitCode: 0,
    output: '[main 6b7c8d4] add a.ts\n 1 file changed\n[main 7c8d9e5] add b.ts\n 1 file changed',
    expect: ['commit 6b7c8d4', 'commit 7c8d9e5'],
  },
  {
    name: 'commit succeeded, later command failed (exit 1): the summary line wins',
    command: 'git commit -m "feat: parser" && npm test',
    exitCode: 1,
    output: '[main 8d9e0f6] feat: parser\n 2 files changed, 40 insertions(+)\n\n> test\n> mocha\n\n  1 failing',
    expect: ['commit 8d9e0f6'],
  },
  {
    name: 'exit code not recorded, summary line present',
    command: 'git commit -m "chore: lint"',
    exitCode: undefined,
    output: '[main 9e0f1a7] chore: lint\n 4 files changed, 8 insertions(+), 8 deletions(-)',
    expect: ['commit 9e0f1a7'],
  },
  {
    name: 'CRLF output and ANSI colours',
    command: 'git commit -m "fix: windows"',
    exitCode: 0,
    output: '\x1b[33m[main 0f1a2b8] fix: windows\x1b[m\r\n 1 file changed, 1 insertion(+)\r\n',
    expect: ['commit 0f1a2b8'],
  },
  {
    name: 'commit inside a command substitution',
    command: 'sha=$(git commit -q -m "chore: snapshot" && git rev-parse --short HEAD); echo "$sha"',
    exitCode: 0,
    output: '1a2b3c9',
    expect: ['commit 1a2b3c9'],
  },
  {
    name: 'commit inside a backtick substitution',
    command: 'sha=`git commit -q -m "chore: snapshot" && git rev-parse --short HEAD`; echo "$sha"',
    exitCode: 0,
    output: '1a2b3c9',
    expect: ['commit 1a2b3c9'],
  },
  {
    name: 'commit inside a backtick substitution within double quotes',
    command: 'echo "`git commit -q -m snapshot && git rev-parse --short HEAD`"',
    exitCode: 0,
    output: '1a2b3c9',
    expect: ['commit 1a2b3c9'],
  },
  {
    name: 'commit then amend in one command: only the first is new',
    command: 'git commit -m "feat: x" && git commit --amend --no-edit',
    exitCode: 0,
    output: '[main 2b3c4d0] feat: x\n 1 file changed\n[main 3c4d5e1] feat: x\n Date: Mon Feb 9 10:00:00 2026 +0100\n 1 file changed',
    expect: ['commit 2b3c4d0'],
  },

  // ───────── commits that did not happen, or are not new ─────────
  {
    name: 'nothing to commit (exit 1)',
    command: 'git add -A && git commit -m "chore: sync"',
    exitCode: 1,
    output: NOTHING_TO_COMMIT,
    expect: [],
  },
  {
    name: 'no changes added to commit (exit 1)',
    command: 'git commit -m "feat: login"',
    exitCode: 1,
    output: NO_CHANGES_ADDED,
    expect: [],
  },
  {
    name: 'nothing to commit, exit code unknown',
    command: 'git commit -m "chore: sync"',
    exitCode: undefined,
    output: NOTHING_TO_COMMIT,
    expect: [],
  },
  {
    name: 'nothing to commit swallowed by || true (exit 0)',
    command: 'git commit -m "chore: sync" || true',
    exitCode: 0,
    output: NOTHING_TO_COMMIT,
    expect: [],
  },
  {
    name: 'failure swallowed by || echo (exit 0)',
    command: 'git commit -m "chore: sync" 2>/dev/null || echo "no changes"',
    exitCode: 0,
    output: 'no changes',
    expect: [],
  },
  {
    name: 'Claude Code pre-commit hook blocked the command (verbatim, no exit code)',
    command: OTEL_COMMIT,
    exitCode: undefined,
    output: "Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\\nRun 'mix format' to fix.\\n\\nFix these issues before committing.",
    expect: [],
  },
  {
    name: 'husky pre-commit failure',
    command: 'git commit -m "feat: form"',
    exitCode: 1,
    output: '✖ eslint --fix:\n  src/form.ts  12:3  error  Unexpected any\nhusky - pre-commit script failed (code 1)',
    expect: [],
  },
  {
    name: 'hook failure with unknown exit code',
    command: 'git commit -m "feat: form"',
    exitCode: undefined,
    output: 'Running pre-commit hooks...\npre-commit hook failed: lint errors',
    expect: [],
  },
  {
    name: 'git add failed before the commit ran (verbatim)',
    command: `git add lib/spotter_web/live/session_live.ex priv/static/assets/spotter.css && git commit -m "$(cat <<'EOF'
feat: rebuild SessionLive transcript panel with light theme and threaded rendering (spotter-fum.2)
EOF
)"`,
    exitCode: 1,
    output: 'Exit code 1\nThe following paths are ignored by one of your .gitignore files:\npriv/static/assets\nhint: Use -f if you really want to add them.',
    expect: [],
  },
  {
    name: 'error: pathspec, exit code unknown',
    command: 'git commit -m "fix" src/missing.ts',
    exitCode: undefined,
    output: "error: pathspec 'src/missing.ts' did not match any file(s) known to git",
    expect: [],
  },
  {
    name: 'fatal: not a git repository',
    command: 'git commit -m "init"',
    exitCode: 128,
    output: 'fatal: not a git repository (or any of the parent directories): .git',
    expect: [],
  },
  {
    name: 'empty message aborts',
    command: 'git commit -m ""',
    exitCode: 1,
    output: 'Aborting commit due to empty commit message.',
    expect: [],
  },
  {
    name: 'quiet commit, exit code unknown, no output: no evidence',
    command: 'git commit -q -m "wip"',
    exitCode: undefined,
    output: '',
    expect: [],
  },
  {
    name: 'amend only (--amend --no-edit)',
    command: 'git add -A && git commit --amend --no-edit',
    exitCode: 0,
    output: '[main 4d5e6f2] feat: login form\n Date: Mon Feb 9 10:00:00 2026 +0100\n 2 files changed, 14 insertions(+)',
    expect: [],
  },
  {
    name: 'amend with new message',
    command: 'git commit --amend -m "feat: login form (with validation)"',
    exitCode: 0,
    output: '[main 5e6f7a3] feat: login form (with validation)\n Date: Mon Feb 9 10:00:00 2026 +0100',
    expect: [],
  },
  {
    name: 'amend spelled as an abbreviated long option',
    command: 'git commit --amen -m "fix"',
    exitCode: 0,
    output: '[main 6f7a8b4] fix',
    expect: [],
  },
  {
    name: 'dry run',
    command: 'git commit --dry-run -m "x"',
    exitCode: 0,
    output: 'On branch main\nChanges to be committed:\n  (use "git restore --staged <file>..." to unstage)\n\tmodified:   a.ts\n',
    expect: [],
  },
  {
    name: 'git commit -h',
    command: 'git commit -h',
    exitCode: 129,
    output: 'usage: git commit [-a | --interactive | --patch] [-s] [-v] [-u<mode>] [--amend]',
    expect: [],
  },
  {
    name: 'git commit --help',
    command: 'git commit --help | head -20',
    exitCode: 0,
    output: 'GIT-COMMIT(1)                 Git Manual                 GIT-COMMIT(1)',
    expect: [],
  },
  {
    name: 'git log --grep commit',
    command: 'git log --grep commit --oneline -5',
    exitCode: 0,
    output: '1a2b3c4 fix: commit hook\n5d6e7f8 feat: commit view',
    expect: [],
  },
  {
    name: 'echo git commit',
    command: 'echo git commit -m "x"',
    exitCode: 0,
    output: 'git commit -m x',
    expect: [],
  },
  {
    name: 'grep "git commit" in files',
    command: 'grep -rn "git commit" scripts/ docs/',
    exitCode: 0,
    output: 'scripts/release.sh:4:git commit -m "release $VERSION"\n[main 1234567] looks like a summary line',
    expect: [],
  },
  {
    name: 'echo "git commit" into a file',
    command: 'echo "git commit -m x && git push" >> notes.md',
    exitCode: 0,
    output: '',
    expect: [],
  },
  {
    name: 'git show',
    command: 'git show --stat HEAD',
    exitCode: 0,
    output: 'commit 1a2b3c4d5e6f\nAuthor: Bot <bot@example.com>\n\n    feat: x\n',
    expect: [],
  },
  {
    name: 'git commit-tree',
    command: 'git commit-tree HEAD^{tree} -p HEAD -m "synthetic"',
    exitCode: 0,
    output: '8c1f7b2a9d3e4f5061728394a5b6c7d8e9f0a1b2',
    expect: [],
  },
  {
    name: 'alias (git ci) is not recognised',
    command: 'git ci -m "fix"',
    exitCode: 0,
    output: '[main 7a8b9c5] fix',
    expect: [],
  },
  {
    name: 'commented-out commit',
    command: '# git commit -m "not yet"\ngit status --short',
    exitCode: 0,
    output: ' M src/a.ts',
    expect: [],
  },
  {
    name: 'heredoc writing a script that contains git commit / git push',
    command: `cat > scripts/release.sh <<'EOF'
#!/bin/sh
git commit -am "release"
git push --follow-tags
EOF
chmod +x scripts/release.sh`,
    exitCode: 0,
    output: '',
    expect: [],
  },
  {
    name: 'running a script file (its commits are not visible)',
    command: 'bash scripts/release.sh',
    exitCode: 0,
    output: '[main 8b9c0d6] release',
    expect: [],
  },
  {
    name: 'sudo is not looked through',
    command: 'sudo git commit -m "root owned"',
    exitCode: 0,
    output: '[main 9c0d1e7] root owned',
    expect: [],
  },
  {
    name: 'command -v git',
    command: 'command -v git && git --version',
    exitCode: 0,
    output: '/usr/bin/git\ngit version 2.43.0',
    expect: [],
  },
  {
    name: 'cherry-pick prints a summary line but is not git commit',
    command: 'git cherry-pick 1a2b3c4',
    exitCode: 0,
    output: '[main 0d1e2f8] fix: port hotfix\n Date: Tue Feb 10 09:00:00 2026 +0100\n 1 file changed',
    expect: [],
  },
  {
    name: 'staging and diffing only',
    command: 'git add .beads/ && git diff --cached --stat',
    exitCode: 0,
    output: ' .beads/issues.jsonl | 4 ++--\n 1 file changed, 2 insertions(+), 2 deletions(-)',
    expect: [],
  },
  {
    name: 'unterminated quote does not throw',
    command: 'git commit -m "oops',
    exitCode: 2,
    output: 'bash: -c: line 1: unexpected EOF while looking for matching `"\'',
    expect: [],
  },

  // ───────── pushes ─────────
  {
    name: 'push --set-upstream, new branch (verbatim)',
    command: 'git push --set-upstream origin spotter-gqc 2>&1',
    exitCode: 0,
    output: NEW_BRANCH_PUSH,
    expect: ['pr_checkpoint push:new:spotter-gqc'],
  },
  {
    name: 'bd sync && git push (verbatim)',
    command: 'bd sync 2>&1 && git push 2>&1',
    exitCode: 0,
    output:
      'Exporting beads to JSONL...\n✓ Exported 0 issues\n✓ /home/USER/projects/spotter/.beads/issues.jsonl updated\nTo github.com:marot/spotter.git\n   bb53fb4..05fd186  spotter-gqc -> spotter-gqc',
    expect: ['pr_checkpoint push:bb53fb4..05fd186'],
  },
  {
    name: 'push without upstream fails (verbatim)',
    command: 'git push 2>&1',
    exitCode: 128,
    output: NO_UPSTREAM,
    expect: [],
  },
  {
    name: 'push without upstream, exit code unknown',
    command: 'git push 2>&1',
    exitCode: undefined,
    output: NO_UPSTREAM,
    expect: [],
  },
  {
    name: 'rejected push',
    command: 'git push origin main',
    exitCode: 1,
    output: REJECTED_PUSH,
    expect: [],
  },
  {
    name: 'rejected push, exit code unknown',
    command: 'git push origin main',
    exitCode: undefined,
    output: REJECTED_PUSH,
    expect: [],
  },
  {
    name: 'Everything up-to-date',
    command: 'git push',
    exitCode: 0,
    output: 'Everything up-to-date',
    expect: [],
  },
  {
    name: 'push --dry-run',
    command: 'git push --dry-run origin main',
    exitCode: 0,
    output: 'To github.com:acme/web.git\n   1a2b3c4..5d6e7f8  main -> main',
    expect: [],
  },
  {
    name: 'push -n',
    command: 'git push -nv origin main',
    exitCode: 0,
    output: 'To github.com:acme/web.git\n   1a2b3c4..5d6e7f8  main -> main',
    expect: [],
  },
  {
    name: 'forced update after an amend',
    command: 'git commit --amend --no-edit && git push --force-with-lease',
    exitCode: 0,
    output:
      '[feat/login 6e7f8a9] feat: login\n Date: Mon Feb 9 10:00:00 2026 +0100\nTo github.com:acme/web.git\n + 1a2b3c4...6e7f8a9 feat/login -> feat/login (forced update)',
    expect: ['pr_checkpoint push:1a2b3c4...6e7f8a9'],
  },
  {
    name: 'deleting a remote branch',
    command: 'git push origin --delete old-feature',
    exitCode: 0,
    output: 'To github.com:acme/web.git\n - [deleted]         old-feature',
    expect: [],
  },
  {
    name: 'tag push',
    command: 'git tag v1.2.0 && git push origin v1.2.0',
    exitCode: 0,
    output: 'To github.com:acme/web.git\n * [new tag]         v1.2.0 -> v1.2.0',
    expect: ['pr_checkpoint push:new:v1.2.0'],
  },
  {
    name: 'pull then push: only the To block counts',
    command: 'git pull --rebase && git push',
    exitCode: 0,
    output:
      'From github.com:acme/web\n   0a0a0a0..1b1b1b1  main       -> origin/main\nSuccessfully rebased and updated refs/heads/main.\nTo github.com:acme/web.git\n   1b1b1b1..2c2c2c2  main -> main',
    expect: ['pr_checkpoint push:1b1b1b1..2c2c2c2'],
  },
  {
    name: 'pull alone is not a push',
    command: 'git pull',
    exitCode: 0,
    output: 'From github.com:acme/web\n   0a0a0a0..1b1b1b1  main       -> origin/main\nFast-forward',
    expect: [],
  },
  {
    name: 'quiet push, exit 0',
    command: 'git push -q origin HEAD',
    exitCode: 0,
    output: '',
    expect: ['pr_checkpoint push:cmd:#'],
  },
  {
    name: 'porcelain push',
    command: 'git push --porcelain -u origin feat',
    exitCode: 0,
    output: "To github.com:acme/web.git\n*\trefs/heads/feat:refs/heads/feat\t[new branch]\nbranch 'feat' set up to track 'origin/feat'.\nDone",
    expect: ['pr_checkpoint push:new:feat'],
  },
  {
    name: 'push with exit code unknown, ref line present',
    command: 'git push',
    exitCode: undefined,
    output: 'To github.com:acme/web.git\n   3d3d3d3..4e4e4e4  main -> main',
    expect: ['pr_checkpoint push:3d3d3d3..4e4e4e4'],
  },
  {
    name: 'echo "git push" is not a push',
    command: 'echo "next: git push"',
    exitCode: 0,
    output: 'next: git push',
    expect: [],
  },

  // ───────── gh pr ─────────
  {
    name: 'gh pr create prints the URL',
    command: 'gh pr create --title "feat: LM Studio provider" --body "Replaces the Ollama wiring."',
    exitCode: 0,
    output: PR_CREATED,
    expect: ['pr_checkpoint pr:https://github.com/acme/chatbot-ui/pull/128'],
  },
  {
    name: 'push -u && gh pr create with a heredoc body (Claude style)',
    command: `git push -u origin HEAD && gh pr create --title "feat: OTEL tracing" --body "$(cat <<'EOF'
## Summary
- instrument hook controllers
- git push and gh pr create are mentioned here but not run

## Test plan
- [x] mix test
EOF
)"`,
    exitCode: 0,
    output: `remote: \nTo github.com:marot/spotter.git\n * [new branch]      HEAD -> spotter-4te\nbranch 'spotter-4te' set up to track 'origin/spotter-4te'.\n${PR_CREATED.replace('acme/chatbot-ui/pull/128', 'marot/spotter/pull/31')}`,
    expect: ['pr_checkpoint push:new:spotter-4te', 'pr_checkpoint pr:https://github.com/marot/spotter/pull/31'],
  },
  {
    name: 'gh pr create: PR already exists',
    command: 'gh pr create --fill',
    exitCode: 1,
    output: 'a pull request for branch "feat/login" into branch "main" already exists:\nhttps://github.com/acme/web/pull/77',
    expect: [],
  },
  {
    name: 'gh pr create: PR already exists, exit code unknown',
    command: 'gh pr create --fill',
    exitCode: undefined,
    output: 'a pull request for branch "feat/login" into branch "main" already exists:\nhttps://github.com/acme/web/pull/77',
    expect: [],
  },
  {
    name: 'gh pr create --web only opens a browser',
    command: 'gh pr create --web',
    exitCode: 0,
    output: 'Opening github.com/acme/web/compare/main...feat/login in your browser.',
    expect: [],
  },
  {
    name: 'gh pr ready',
    command: 'gh pr ready 42',
    exitCode: 0,
    output: '✓ Pull request #42 is marked as "ready for review"',
    expect: ['pr_checkpoint pr-ready:42'],
  },
  {
    name: 'gh pr ready, exit code unknown',
    command: 'gh pr ready',
    exitCode: undefined,
    output: '✓ Pull request #43 is marked as "ready for review"',
    expect: ['pr_checkpoint pr-ready:43'],
  },
  {
    name: 'gh pr ready --undo',
    command: 'gh pr ready 42 --undo',
    exitCode: 0,
    output: '✓ Pull request #42 is converted to "draft"',
    expect: [],
  },
  {
    name: 'gh pr merge --squash --delete-branch',
    command: 'gh pr merge 42 --squash --delete-branch',
    exitCode: 0,
    output: '✓ Squashed and merged pull request #42 (feat: login)\n✓ Deleted branch feat/login and switched to branch main',
    expect: ['pr_checkpoint pr-merge:42'],
  },
  {
    name: 'gh pr merge --auto',
    command: 'gh pr merge --auto --squash',
    exitCode: 0,
    output: '✓ Pull request #7 will be automatically merged via squash when all requirements are met',
    expect: ['pr_checkpoint pr-merge:7'],
  },
  {
    name: 'gh pr merge fails',
    command: 'gh pr merge 42 --merge',
    exitCode: 1,
    output: 'X Pull request #42 is not mergeable: the merge commit cannot be cleanly created.',
    expect: [],
  },
  {
    name: 'gh pr view / checks are not checkpoints',
    command: 'gh pr view 42 --json state && gh pr checks 42',
    exitCode: 0,
    output: '{"state":"OPEN"}\nAll checks were successful',
    expect: [],
  },
];

describe('detectShellBoundaries (table)', () => {
  it(`has a large table (${CASES.length} cases)`, () => {
    assert.ok(CASES.length >= 60);
    assert.equal(new Set(CASES.map((c) => c.name)).size, CASES.length, 'case names are unique');
  });
  for (const c of CASES) {
    it(c.name, () => {
      assert.deepEqual(found(c), c.expect);
    });
  }
});

describe('detectShellBoundaries (details)', () => {
  it('commit detail is "sha subject"', () => {
    const [b] = detectShellBoundaries({ command: CLAUDE_HEREDOC_COMMIT, exitCode: 0, output: CLAUDE_HEREDOC_COMMIT_OUTPUT });
    assert.deepEqual(b, {
      kind: 'commit',
      key: '99b497c',
      detail: '99b497c feat: transcript + terminal annotations with message references (spotter-gqc)',
    });
  });

  it('without a summary line the subject comes from the -m heredoc', () => {
    const command = `git commit -q -m "$(cat <<'EOF'\nfeat: quiet heredoc\n\nbody\nEOF\n)"`;
    const [b] = detectShellBoundaries({ command, exitCode: 0, output: '' });
    assert.ok(b);
    assert.equal(b.kind, 'commit');
    assert.match(b.key, /^cmd:[0-9a-f]{8}$/);
    assert.equal(b.detail, '? feat: quiet heredoc');
  });

  // issue 34: the agent idiom `git commit -q … && git log --oneline -1` was named "commit ?" and counted
  // twice once its sha was known elsewhere; the log's line names it.
  it('a quiet commit followed by git log --oneline -1 is keyed and named by the printed sha', () => {
    const command = 'git add -A && git commit -qm "step 1: hello.txt" && git log --oneline -1';
    assert.deepEqual(detectShellBoundaries({ command, exitCode: 0, output: '3f2a1c9 step 1: hello.txt\n' }), [
      { kind: 'commit', key: '3f2a1c9', detail: '3f2a1c9 step 1: hello.txt' },
    ]);
  });

  it('other head-printing idioms after a quiet commit: --format=%h, rev-parse --short HEAD, a decorated line', () => {
    const cases: Array<[string, string, string]> = [
      ['git commit -qm "x y" && git log -1 --format=%h', 'abc1234\n', 'abc1234 x y'],
      ['git commit -qm "x y"; git rev-parse --short HEAD', 'abc1234\n', 'abc1234 x y'],
      ['git commit -q -m z && git log -n 1 --oneline', 'abc1234 (HEAD -> main) z\n', 'abc1234 z'],
    ];
    for (const [command, output, detail] of cases) {
      const [b] = detectShellBoundaries({ command, exitCode: 0, output });
      assert.deepEqual(b, { kind: 'commit', key: 'abc1234', detail }, command);
    }
  });

  it('a git log of other commits, or before the commit, does not name it', () => {
    for (const command of [
      'git log --oneline -1 && git commit -qm a',
      'git commit -qm a && git log --oneline -1 main~3',
      'git commit -qm a && git log --oneline',
    ]) {
      const [b] = detectShellBoundaries({ command, exitCode: 0, output: 'abc1234 older\n' });
      assert.match(b?.key ?? '', /^cmd:/, command);
    }
  });

  it('the hash key is stable for the same command and differs between commands', () => {
    const [a] = detectShellBoundaries({ command: 'git commit -qm a', exitCode: 0, output: '' });
    const [a2] = detectShellBoundaries({ command: 'git commit -qm a', exitCode: 0, output: '' });
    const [b] = detectShellBoundaries({ command: 'git commit -qm b', exitCode: 0, output: '' });
    assert.ok(a && a2 && b);
    assert.equal(a.key, a2.key);
    assert.notEqual(a.key, b.key);
  });

  it('push detail names the refs and the remote', () => {
    const [b] = detectShellBoundaries({ command: 'git push', exitCode: 0, output: CLAUDE_COMMIT_AND_PUSH_OUTPUT.split('\n').slice(3).join('\n') });
    assert.ok(b);
    assert.equal(b.detail, 'pushed spotter-gqc -> spotter-gqc (99b497c..ceff8c3) to github.com:marot/spotter.git');
  });

  it('shellJoin round-trips through the detector', () => {
    const argv = ['bash', '-lc', `git commit -m "it's \\"quoted\\" $(not run)"`];
    assert.equal(shellJoin(['git', 'status']), 'git status');
    assert.deepEqual(found({ command: shellJoin(argv), exitCode: 0, output: '[main abcdef0] x' }), ['commit abcdef0']);
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.integer({ min: 0, max: 255 }), { nil: undefined }), fc.string(), (command, exitCode, output) => {
        detectShellBoundaries({ command, exitCode, output });
        detectShellBoundaries({ command: `git commit ${command}`, exitCode, output: `[main 1234567] ${output}` });
      }),
      { numRuns: 500 },
    );
  });
});

// ───────── real recordings ─────────

/**
 * Expected successful commits per recording, established by reading the recordings (each `git commit`
 * Bash call and its tool_result), not by running the detector:
 *  - 258c7280: 5 `git commit` calls, all print a `[spotter-gqc <sha>]` summary line.
 *  - 8463c716: 5 calls; the 2nd fails in `git add` (ignored path, exit 1) before git commit runs.
 *  - ae4a77f8: 14 calls; 8 are stopped by the project's "Pre-commit validation failed" hook
 *    (format, credo, dialyzer; one of them with --no-verify), 6 print a summary line.
 *  - Codex acidicsoil: 37 shell calls, none touch git. Codex localpush: arguments and outputs are
 *    redacted, so nothing can be detected (0 by construction).
 * Pushes (pr_checkpoint): 258c7280 has 6 `git push` calls, the first fails ("no upstream branch",
 * exit 128), 5 print a `To github.com:…` block with an update; 8463c716 has 2, the same failure then
 * `* [new branch]`; ae4a77f8 pushes nothing.
 */
const EXPECTED: Record<string, { attempts: number; commits: string[]; pushes: string[] }> = {
  'claude-spotter-258c7280.jsonl': {
    attempts: 5,
    commits: ['99b497c', 'ceff8c3', 'bb53fb4', '05fd186', 'a230dbf'],
    pushes: ['push:new:spotter-gqc', 'push:99b497c..ceff8c3', 'push:ceff8c3..bb53fb4', 'push:bb53fb4..05fd186', 'push:05fd186..a230dbf'],
  },
  'claude-spotter-8463c716.jsonl': {
    attempts: 5,
    commits: ['3bb8701', 'b9288c2', '331f337', 'af81c43'],
    pushes: ['push:new:spotter-fum'],
  },
  'claude-spotter-ae4a77f8.jsonl': {
    attempts: 14,
    commits: ['12e2d10', '461930e', 'd9e611e', 'a23908c', 'ad570ac', '12fe57f'],
    pushes: [],
  },
  'claude-spotter-ae4a77f8-acompact.jsonl': { attempts: 0, commits: [], pushes: [] },
  'codex-acidicsoil-lmstudio.jsonl': { attempts: 0, commits: [], pushes: [] },
  'codex-localpush-compacted.jsonl': { attempts: 0, commits: [], pushes: [] },
  'codex-localpush-plan.jsonl': { attempts: 0, commits: [], pushes: [] },
};

interface ShellCall {
  command: string;
  /** Exit code as the recording states it (Claude: `is_error` + "Exit code N"; Codex: metadata). */
  exitCode: number | undefined;
  output: string;
}

/** Bash / shell tool calls paired with their results, in order. */
function shellCalls(file: string): ShellCall[] {
  const commands = new Map<string, string>();
  const calls: ShellCall[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r: any = JSON.parse(line);
    const content = r?.message?.content;
    if (r.type === 'assistant' && Array.isArray(content)) {
      for (const c of content) if (c.type === 'tool_use' && c.name === 'Bash') commands.set(c.id, String(c.input?.command ?? ''));
    }
    if (r.type === 'user' && Array.isArray(content)) {
      for (const c of content) {
        if (c.type !== 'tool_result' || !commands.has(c.tool_use_id)) continue;
        const output = typeof c.content === 'string' ? c.content : (c.content ?? []).map((x: { text?: string }) => x.text ?? '').join('\n');
        const stated = /^Exit code (\d+)/.exec(output);
        // Claude Code marks a non-zero exit as is_error and prefixes "Exit code N"; an is_error
        // without it is a hook that blocked the command (no exit code).
        const exitCode = c.is_error ? (stated ? Number(stated[1]) : undefined) : 0;
        calls.push({ command: commands.get(c.tool_use_id) ?? '', exitCode, output });
      }
    }
    const p = r.payload;
    if (r.type === 'response_item' && p?.type === 'function_call' && (p.name === 'shell' || p.name === 'exec_command')) {
      try {
        const args = JSON.parse(p.arguments);
        commands.set(p.call_id, Array.isArray(args.command) ? shellJoin(args.command) : String(args.cmd ?? ''));
      } catch {
        // redacted arguments ("[REDACTED_ARGUMENTS …]")
      }
    }
    if (r.type === 'response_item' && p?.type === 'function_call_output' && commands.has(p.call_id)) {
      let output = String(p.output ?? '');
      let exitCode: number | undefined;
      try {
        const o = JSON.parse(output);
        output = String(o.output ?? '');
        exitCode = typeof o.metadata?.exit_code === 'number' ? o.metadata.exit_code : undefined;
      } catch {
        // plain-text output
      }
      calls.push({ command: commands.get(p.call_id) ?? '', exitCode, output });
    }
  }
  return calls;
}

describe('detectShellBoundaries on real recordings', function () {
  const dir = process.env.RAWR_TRANSCRIPTS ?? path.resolve(__dirname, '../../../../shared/data/transcripts');

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`${file}: ${expected.commits.length} commits, ${expected.pushes.length} pushes`, function () {
      const full = path.join(dir, file);
      needShared(this, full);
      const calls = shellCalls(full);
      assert.equal(calls.filter((c) => c.command.includes('git commit')).length, expected.attempts, 'git commit attempts');
      for (const mode of ['stated exit code', 'exit code unknown'] as const) {
        const boundaries = calls.flatMap((c) => detectShellBoundaries({ ...c, exitCode: mode === 'stated exit code' ? c.exitCode : undefined }));
        assert.deepEqual(
          boundaries.filter((b) => b.kind === 'commit').map((b) => b.key),
          expected.commits,
          `${mode}: commits`,
        );
        assert.deepEqual(
          boundaries.filter((b) => b.kind === 'pr_checkpoint').map((b) => b.key),
          expected.pushes,
          `${mode}: pushes`,
        );
      }
    });
  }
});

describe('detectShellBoundaries: hostile nesting (issue 11, item 6)', () => {
  it('2,000 nested $( … ) are a reported problem, not a stack overflow', () => {
    const deep = `git commit -m "$(${'echo $('.repeat(2000)}x${')'.repeat(2000)})"`;
    assert.deepEqual(detectShellBoundaries({ command: deep, exitCode: 0, output: '[main abcdef0] x' }), []);
    const r = analyzeShellCommand({ command: deep, exitCode: 0, output: '[main abcdef0] x' });
    assert.deepEqual(r.boundaries, []);
    assert.match(r.problem!.message, /deeper than 64 levels/);
    for (const hostile of ['$('.repeat(20_000), '<('.repeat(20_000), '"$('.repeat(20_000), '`echo \\`'.repeat(3000)]) {
      assert.doesNotThrow(() => analyzeShellCommand({ command: `git commit -m x ${hostile}`, exitCode: 0, output: '' }));
    }
  });

  it('ordinary nesting still counts', () => {
    const r = analyzeShellCommand({ command: 'git commit -m "$(cat <<\'EOF\'\nfeat: x $(date +%s)\nEOF\n)"', exitCode: 0, output: '[main abcdef0] feat: x' });
    assert.equal(r.problem, undefined);
    assert.deepEqual(
      r.boundaries.map((b) => b.key),
      ['abcdef0'],
    );
  });
});
