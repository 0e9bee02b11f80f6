/**
 * Commit / PR boundary detection from one finished shell command (a Claude Code `Bash` call, a Codex
 * `shell` / `exec_command` call, a VS Code terminal command): the command line, its exit code when
 * the recording states one, and its combined output.
 *
 * Two questions, answered separately:
 *  1. Did the command line *run* `git commit` / `git push` / `gh pr …`? Answered with a small shell
 *     tokenizer (quotes, escapes, `$(…)`, backticks, heredoc bodies skipped, comments, redirections),
 *     never with a regex over the whole line, so `echo git commit`, `grep "git commit" f`,
 *     `git log --grep commit` or a commit message that mentions "git push" are not invocations.
 *     Wrappers are looked through: `cd x && …`, `FOO=1 git …`, `env`, `command`, `exec`, `time`,
 *     `nice`, `nohup`, `timeout`, `bash|sh|zsh -c '…'` / `-lc` (Codex), `eval`, `git -C dir` /
 *     `git -c k=v`. `sudo` is deliberately not looked through.
 *  2. Did it succeed? Decided from git's own output first, the exit code second (see `detectShellBoundaries`).
 *
 * Pure: no I/O, no `vscode`.
 */
import type { DetectedBoundary } from './types';

export interface ShellCommandInput {
  /** The command line as typed. A JSON argv array string (`["bash","-lc","…"]`) is also accepted. */
  command: string;
  /** Exit status; `undefined` when the recording does not state it. */
  exitCode: number | undefined;
  /** stdout + stderr as recorded (order as interleaved by the tool). */
  output: string;
}

/**
 * Boundaries a finished shell command produced.
 *
 * `commit` (one per new commit):
 *  - Needs a real `git commit` invocation that is not `--amend` (an amend rewrites the commit that
 *    already marked the boundary; it is not a new phase, so it yields nothing), not `--dry-run`, not
 *    `-h`/`--help`.
 *  - Evidence of success is git's summary line `[<branch> (root-commit)? <sha>] <subject>`; git prints
 *    it only after the commit object and the ref are written. Lines are paired with the invocations
 *    that print them (`git commit`, `git cherry-pick`, `git revert`) in order. A paired line counts
 *    even when the exit code is non-zero: in `git commit … && npm test` the exit status belongs to
 *    the last command, not to the commit. key = short sha, detail = `sha subject`.
 *  - Without a summary line (e.g. `git commit -q`, output redirected or not recorded) the commit
 *    counts only when the exit code is known to be 0 and the output carries no failure marker
 *    (`nothing to commit`, `no changes added to commit`, `error:`, `fatal:`, `Aborting commit`,
 *    hook failure, …). key = `cmd:<hash of the command>`, detail = `? <subject from -m>`.
 *    With an unknown exit code and no summary line nothing is reported. When a later `git log --oneline -1`
 *    (`-1 --format=%h`, `git rev-parse HEAD`) in the same command printed the new sha, the commit is keyed
 *    by it (`git commit -q … && git log --oneline -1`, a common agent idiom): one commit, one fact.
 *
 * `pr_checkpoint`:
 *  - `git push` (not `--dry-run`/`-n`, not a deletion): a `To <remote>` block whose ref lines show an
 *    update (`a..b`, forced `a...b`, `* [new branch]`/`[new tag]`). Rejected, up-to-date and deleted
 *    refs do not count. key = `push:<range>` or `push:new:<ref>`. Without a `To` block: only when the
 *    exit code is 0 and the output is not `Everything up-to-date`/rejected/an error (key `push:cmd:<hash>`).
 *  - `gh pr create|new` (not `--web`, not `--dry-run`): the PR URL in the output, not "already exists",
 *    exit code not non-zero. key = `pr:<url>`.
 *  - `gh pr ready` (not `--undo`) and `gh pr merge` (not `--disable-auto`): exit 0, or with an unknown
 *    exit code gh's confirmation ("ready for review", "Merged", "will be automatically merged").
 *    key = `pr-ready:<n>` / `pr-merge:<n>`.
 */
export function detectShellBoundaries(input: ShellCommandInput): DetectedBoundary[] {
  return analyzeShellCommand(input).boundaries;
}

function detect(input: ShellCommandInput): DetectedBoundary[] {
  const invocations = invocationsOf(input.command);
  if (invocations.length === 0) return [];

  const output = normalizeOutput(input.output ?? '');
  const { exitCode } = input;
  const cmdHash = fnv1a(input.command);
  const out: DetectedBoundary[] = [];
  const seen = new Set<string>();
  const emit = (b: DetectedBoundary): void => {
    if (seen.has(b.key)) return;
    seen.add(b.key);
    out.push(b);
  };

  // Pair git's "[branch sha] subject" lines with the invocations that print them; extra lines (a
  // commit in a loop) belong to the last such invocation.
  const commitLines = parseCommitLines(output);
  const producers = invocations.filter((v) => v.type === 'commit' || v.type === 'other_commit_writer');
  const linesOf = pairInOrder(commitLines, producers.length);

  const pushBlocks = parsePushBlocks(output);
  const pushes = invocations.filter((v) => v.type === 'push');
  const blocksOf = pairInOrder(pushBlocks, pushes.length);

  const prUrls = [...output.matchAll(PR_URL)].map((m) => m[0]);
  const creates = invocations.filter((v) => v.type === 'pr' && v.action === 'create');
  const urlsOf = pairInOrder(prUrls, creates.length);

  let unpairedCommits = 0;
  let unpairedPushes = 0;
  for (const inv of invocations) {
    switch (inv.type) {
      case 'other_commit_writer':
      case 'head_sha':
        break;
      case 'commit': {
        if (inv.amend) break; // an amend rewrites the boundary commit; not a new phase
        const lines = linesOf[producers.indexOf(inv)] ?? [];
        for (const line of lines) emit({ kind: 'commit', key: line.sha, detail: `${line.sha} ${line.subject}`.trimEnd() });
        if (lines.length === 0 && exitCode === 0 && !COMMIT_FAILURE.some((re) => re.test(output))) {
          // `git commit -q … && git log --oneline -1`: the sha is in the log's line, the commit is one fact by it.
          const head = invocations.slice(invocations.indexOf(inv) + 1).some((v) => v.type === 'head_sha') ? headLine(output) : undefined;
          if (head && !seen.has(head.sha)) {
            emit({ kind: 'commit', key: head.sha, detail: `${head.sha} ${head.subject || inv.subject || ''}`.trimEnd() });
            break;
          }
          const key = `cmd:${cmdHash}${unpairedCommits ? `:${unpairedCommits}` : ''}`;
          unpairedCommits++;
          emit({ kind: 'commit', key, detail: `? ${inv.subject ?? '(no commit line in output)'}` });
        }
        break;
      }
      case 'push': {
        const blocks = blocksOf[pushes.indexOf(inv)] ?? [];
        let pushed = false;
        for (const block of blocks) {
          if (block.updates.length === 0) continue;
          pushed = true;
          emit({
            kind: 'pr_checkpoint',
            key: `push:${block.updates.map((u) => u.key).join(',')}`,
            detail: `pushed ${block.updates.map((u) => u.text).join(', ')} to ${block.remote}`,
          });
        }
        if (!pushed && blocks.length === 0 && exitCode === 0 && !PUSH_FAILURE.some((re) => re.test(output))) {
          const key = `push:cmd:${cmdHash}${unpairedPushes ? `:${unpairedPushes}` : ''}`;
          unpairedPushes++;
          emit({ kind: 'pr_checkpoint', key, detail: 'pushed (no ref lines in output)' });
        }
        break;
      }
      case 'pr': {
        if (exitCode !== undefined && exitCode !== 0) break;
        if (inv.action === 'create') {
          if (/already exists/i.test(output)) break;
          const urls = urlsOf[creates.indexOf(inv)] ?? [];
          for (const url of urls) emit({ kind: 'pr_checkpoint', key: `pr:${url}`, detail: `opened ${url}` });
          if (urls.length === 0 && exitCode === 0 && !GH_FAILURE.test(output)) {
            emit({ kind: 'pr_checkpoint', key: `pr:cmd:${cmdHash}`, detail: 'opened a pull request (no URL in output)' });
          }
          break;
        }
        const confirmed =
          inv.action === 'ready'
            ? /ready for review/i.test(output) && !/already/i.test(output)
            : /\bmerged\b|will be automatically merged|added to the merge queue/i.test(output) && !/already merged/i.test(output);
        if (!(confirmed || (exitCode === 0 && !GH_FAILURE.test(output) && !/\balready\b/i.test(output)))) break;
        const ref = prNumber(output) ?? inv.target ?? `cmd:${cmdHash}`;
        emit({
          kind: 'pr_checkpoint',
          key: `pr-${inv.action}:${ref}`,
          detail: inv.action === 'ready' ? `marked PR ${ref} ready for review` : `merged PR ${ref}`,
        });
        break;
      }
    }
  }
  return out;
}

/** Quote an argv (e.g. Codex `["bash","-lc","…"]`) as one POSIX shell command line. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

// ───────────────────────────── invocations ─────────────────────────────

type Invocation =
  | { type: 'commit'; amend: boolean; subject?: string }
  /** `git cherry-pick` / `git revert`: print the same summary line but are not a `git commit`. */
  | { type: 'other_commit_writer' }
  | { type: 'push' }
  /** `git log --oneline -1`, `git log -1 --format=%h`, `git rev-parse [--short] HEAD`: prints the new commit's sha after a quiet commit. */
  | { type: 'head_sha' }
  | { type: 'pr'; action: 'create' | 'ready' | 'merge'; target?: string };

const MAX_DEPTH = 4;

/**
 * How deep `$(…)`, `<(…)` and backticks may nest before the command is "too complex": real commands nest
 * two or three levels; the lexer recurses per level, so a hostile 2,000-level command would otherwise
 * overflow the stack and take a whole replay or chat turn down with it.
 */
export const MAX_SUBSTITUTION_DEPTH = 64;

/** Thrown inside the lexer when a command nests deeper than MAX_SUBSTITUTION_DEPTH; caught below. */
class TooComplex extends Error {}

/** A command rawr could not analyse, and why (reported; such a command yields no boundary). */
export interface ShellProblem {
  message: string;
}

/**
 * detectShellBoundaries, plus the problem when the command was too complex to analyse (then no
 * boundary is reported from it). Never throws.
 */
export function analyzeShellCommand(input: ShellCommandInput): { boundaries: DetectedBoundary[]; problem?: ShellProblem } {
  try {
    return { boundaries: detect(input) };
  } catch (err) {
    if (!(err instanceof TooComplex)) throw err;
    return {
      boundaries: [],
      problem: { message: `shell command nests command substitutions deeper than ${MAX_SUBSTITUTION_DEPTH} levels; not analysed for commits or pushes` },
    };
  }
}

function invocationsOf(command: string): Invocation[] {
  const argv = jsonArgv(command);
  if (argv) return fromArgv(argv, 0);
  return fromScript(command, 0);
}

function jsonArgv(command: string): string[] | undefined {
  const t = command.trim();
  if (!t.startsWith('[') || !t.endsWith(']')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return v as string[];
  } catch {
    // not JSON: `[ -f x ] && git commit …` is a shell test
  }
  return undefined;
}

function fromScript(script: string, depth: number): Invocation[] {
  if (depth > MAX_DEPTH) return [];
  return fromTokens(lex({ s: script, i: 0 }, false), depth);
}

function fromTokens(tokens: Token[], depth: number): Invocation[] {
  const result: Invocation[] = [];
  for (const words of simpleCommands(tokens)) {
    // Command substitutions run before the command that contains them.
    for (const w of words) for (const sub of w.subs) result.push(...fromTokens(sub, depth + 1));
    result.push(
      ...fromArgv(
        words.map((w) => w.value),
        depth,
      ),
    );
  }
  return result;
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

function fromArgv(argv: string[], depth: number): Invocation[] {
  if (depth > MAX_DEPTH) return [];
  const words = stripPrefixes(argv);
  if (!words) return [];
  const [head, ...args] = words;
  if (head === undefined) return [];
  const name = commandName(head);
  if (SHELLS.has(name)) {
    const script = shellScriptArg(args);
    return script === undefined ? [] : fromScript(script, depth + 1);
  }
  if (name === 'eval') return fromScript(args.join(' '), depth + 1);
  if (name === 'git') return gitInvocations(args);
  if (name === 'gh') return ghInvocations(args);
  return [];
}

function commandName(word: string): string {
  return word.replace(/^.*\//, '').replace(/\.exe$/i, '');
}

/** Shell keywords that may precede a simple command (`if git commit …; then`, `do …`, `! …`). */
const RESERVED = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'while', 'until', 'do', 'fi', 'done', 'esac']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** Drops keywords, `VAR=value` prefixes and wrapper commands; undefined when nothing runs. */
function stripPrefixes(argv: string[]): string[] | undefined {
  let w = argv;
  for (let guard = 0; guard < 32; guard++) {
    const head = w[0];
    if (head === undefined) break;
    if (RESERVED.has(head) || ASSIGNMENT.test(head)) {
      w = w.slice(1);
      continue;
    }
    const unwrap = WRAPPERS.get(commandName(head));
    if (!unwrap) return w;
    const rest = unwrap(w.slice(1));
    if (!rest) return undefined;
    w = rest;
  }
  return w.length > 0 ? w : undefined;
}

/** Skips leading options; `withArg` options consume the next word unless written `--opt=value`. */
function skipOptions(args: string[], withArg: readonly string[]): string[] {
  let i = 0;
  for (let a = args[i]; a !== undefined && a.startsWith('-') && a !== '-'; a = args[i]) {
    if (a === '--') return args.slice(i + 1);
    i += withArg.includes(a) ? 2 : 1;
  }
  return args.slice(i);
}

type Unwrap = (args: string[]) => string[] | undefined;

/** Commands that run their arguments as a command: how to get at that command. */
const WRAPPERS = new Map<string, Unwrap>([
  [
    'env',
    (args) => {
      let i = 0;
      for (let a = args[i]; a !== undefined && (a.startsWith('-') || ASSIGNMENT.test(a)); a = args[i]) {
        if (a === '--') return args.slice(i + 1);
        i += ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'].includes(a) ? 2 : 1;
      }
      return args.slice(i);
    },
  ],
  // `command -v git` only prints where git is.
  ['command', (args) => (args.some((a) => a === '-v' || a === '-V') ? undefined : skipOptions(args, []))],
  ['exec', (args) => skipOptions(args, ['-a'])],
  ['time', (args) => skipOptions(args, [])],
  ['nohup', (args) => args],
  ['nice', (args) => skipOptions(args, ['-n'])],
  ['timeout', (args) => skipOptions(args, ['-s', '-k', '--signal', '--kill-after']).slice(1)],
]);

/** The script of `bash -c SCRIPT` / `bash -lc SCRIPT` / `sh -ec SCRIPT`; undefined for `bash file.sh`. */
function shellScriptArg(args: string[]): string | undefined {
  let sawC = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) break;
    if (/^[-+][A-Za-z]+$/.test(a)) {
      if (a.startsWith('-') && a.includes('c')) sawC = true;
      if (/[oO]$/.test(a)) i++; // -o pipefail, +O extglob
      continue;
    }
    if (a.startsWith('--') && a !== '--') continue; // --login, --noprofile
    if (a === '--') continue;
    return sawC ? a : undefined;
  }
  return undefined;
}

const GIT_GLOBAL_WITH_ARG = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env'];

function gitInvocations(args: string[]): Invocation[] {
  let i = 0;
  for (let a = args[i]; a !== undefined && a.startsWith('-'); a = args[i]) {
    if (a === '-h' || a === '--help' || a === '--version' || a === '-v') return [];
    i += GIT_GLOBAL_WITH_ARG.includes(a) ? 2 : 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  switch (sub) {
    case 'commit': {
      const inv = parseCommit(rest);
      return inv ? [inv] : [];
    }
    case 'push':
      return parsePush(rest) ? [{ type: 'push' }] : [];
    case 'log':
      return isHeadLog(rest) ? [{ type: 'head_sha' }] : [];
    case 'rev-parse':
      return rest.includes('HEAD') ? [{ type: 'head_sha' }] : [];
    case 'cherry-pick':
    case 'revert':
      return rest.some((a) => ['-n', '--no-commit', '--abort', '--quit', '--skip', '-h', '--help'].includes(a)) ? [] : [{ type: 'other_commit_writer' }];
    case undefined: // `git` alone
    default:
      return []; // includes aliases (`git ci`), `commit-tree`, `log --grep commit`, `show`, `help commit`
  }
}

/** `git log` that prints the newest commit's short line: one entry (`-1`, `-n 1`, `--max-count=1`) in a one-line format. */
function isHeadLog(args: string[]): boolean {
  const one = args.some((a, i) => a === '-1' || a === '-n1' || a === '--max-count=1' || ((a === '-n' || a === '--max-count') && args[i + 1] === '1'));
  const oneLine = args.some((a) => a === '--oneline' || /^--(?:format|pretty)=(?:format:|tformat:)?['"]?%[hH]\b/.test(a));
  // A range or path names other commits than the one just made.
  const positional = args.filter((a, i) => !a.startsWith('-') && !((args[i - 1] === '-n' || args[i - 1] === '--max-count') && a === '1'));
  return one && oneLine && positional.every((a) => a === 'HEAD');
}

/** `--amen` etc.: git accepts unambiguous prefixes of long options. */
function isLongPrefix(name: string, full: string, min: number): boolean {
  return name.length >= min && full.startsWith(name);
}

const COMMIT_LONG_WITH_ARG = new Set([
  '--message',
  '--file',
  '--reuse-message',
  '--reedit-message',
  '--fixup',
  '--squash',
  '--author',
  '--date',
  '--template',
  '--cleanup',
  '--trailer',
  '--pathspec-from-file',
]);

function parseCommit(args: string[]): Invocation | undefined {
  let amend = false;
  let message: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined || a === '--') break;
    if (a === '-h' || a === '--help') return undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      if (isLongPrefix(name, '--dry-run', 4)) return undefined;
      if (isLongPrefix(name, '--amend', 4)) amend = true;
      else if (name === '--no-amend') amend = false;
      else if (COMMIT_LONG_WITH_ARG.has(name)) {
        const value = eq < 0 ? args[++i] : a.slice(eq + 1);
        if (name === '--message') message ??= value;
      }
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      // Short cluster: `-am msg`, `-qm msg`, `-mmsg`; m F C c t take a value, u S an attached one.
      for (let j = 1; j < a.length; j++) {
        const ch = a.charAt(j);
        if ('mFCct'.includes(ch)) {
          const value = j + 1 < a.length ? a.slice(j + 1) : args[++i];
          if (ch === 'm') message ??= value;
          break;
        }
        if (ch === 'u' || ch === 'S') break;
      }
    }
  }
  return { type: 'commit', amend, subject: subjectOf(message) };
}

/** First line of a literal `-m` message, or of the heredoc in `-m "$(cat <<'EOF' … EOF)"`. */
function subjectOf(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  const heredoc = /^\$\(\s*cat\s*<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1[^\n]*\n([\s\S]*?)\n\s*\2\s*\n?\s*\)$/.exec(message);
  const text = heredoc ? heredoc[3] : /\$\(|`/.test(message) ? undefined : message;
  const line = text?.split('\n').find((l) => l.trim() !== '');
  return line?.trim();
}

function parsePush(args: string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined || a === '--') break;
    if (a === '-h' || a === '--help' || a === '--delete') return false;
    if (a.startsWith('--')) {
      const name = a.split('=')[0] ?? a;
      if (isLongPrefix(name, '--dry-run', 4)) return false;
      if (!a.includes('=') && ['--repo', '--receive-pack', '--exec', '--push-option'].includes(name)) i++;
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        if (a[j] === 'n' || a[j] === 'd') return false; // -n dry run, -d delete
        if (a[j] === 'o') {
          if (j + 1 === a.length) i++;
          break;
        }
      }
      continue;
    }
    if (a.startsWith(':')) return false; // `git push origin :branch` deletes
  }
  return true;
}

function ghInvocations(args: string[]): Invocation[] {
  if (args[0] !== 'pr') return [];
  const rest = args.slice(2);
  if (rest.some((a) => a === '-h' || a === '--help' || a === '--dry-run')) return [];
  switch (args[1]) {
    case 'create':
    case 'new':
      return rest.some((a) => a === '--web' || a === '-w') ? [] : [{ type: 'pr', action: 'create' }];
    case 'ready':
      return rest.includes('--undo') ? [] : [{ type: 'pr', action: 'ready', target: ghTarget(rest) }];
    case 'merge':
      return rest.includes('--disable-auto') ? [] : [{ type: 'pr', action: 'merge', target: ghTarget(rest) }];
    case undefined: // `gh pr` alone
    default:
      return [];
  }
}

/** `gh pr merge 123 --squash` → `123`; a URL → its number; a branch name as is. */
function ghTarget(args: string[]): string | undefined {
  const withArg = ['-R', '--repo', '-b', '--body', '-F', '--body-file', '-t', '--subject', '-A', '--author-email', '--match-head-commit'];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) break;
    if (withArg.includes(a)) i++;
    else if (!a.startsWith('-')) return /\/pull\/(\d+)/.exec(a)?.[1] ?? a.replace(/^#/, '');
  }
  return undefined;
}

// ───────────────────────────── output ─────────────────────────────

function normalizeOutput(output: string): string {
  // eslint-disable-next-line no-control-regex
  return output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r\n?/g, '\n');
}

interface CommitLine {
  sha: string;
  subject: string;
}

/** git's `[main 1a2b3c4] subject`, `[main (root-commit) 1a2b3c4] subject`, `[detached HEAD 1a2b3c4] subject`. */
const COMMIT_LINE = /^\[(.+?)(?: \(root-commit\))? ([0-9a-f]{7,40})\] ?(.*)$/gm;

function parseCommitLines(output: string): CommitLine[] {
  // Groups 2 and 3 are not optional, so they are set whenever the line matches.
  return [...output.matchAll(COMMIT_LINE)].map(([, , sha = '', subject = '']) => ({ sha, subject: subject.trim() }));
}

/** The last line that is a sha alone or `sha (decorations)? subject` (git log --oneline / --format=%h / rev-parse). */
function headLine(output: string): CommitLine | undefined {
  const lines = output.split('\n').map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^([0-9a-f]{7,40})(?: (?:\([^)]*\) )?(.*))?$/.exec(lines[i]!);
    if (m) return { sha: m[1]!.slice(0, 40), subject: (m[2] ?? '').trim() };
  }
  return undefined;
}

const COMMIT_FAILURE: RegExp[] = [
  /nothing to commit/i,
  /nothing added to commit/i,
  /no changes added to commit/i,
  /\bno changes\b/i,
  /^(error|fatal):/im,
  /Aborting commit/i,
  /\b(pre-commit|commit-msg|prepare-commit-msg)\b[^\n]*\b(fail|failed|failure|error|exited with)/i,
  /\bhook\b[^\n]*\b(failed|declined|exited with code [1-9])/i,
];

const PUSH_FAILURE: RegExp[] = [/Everything up-to-date/i, /\[(remote )?rejected\]/, /^(error|fatal):/im];

const GH_FAILURE = /^(error|fatal|GraphQL|HTTP \d{3}|could not|failed)\b/im;

const PR_URL = /https?:\/\/[^\s"'<>]+\/pull\/\d+(?![\w/])/g;

function prNumber(output: string): string | undefined {
  return /\/pull\/(\d+)/.exec(output)?.[1] ?? /#(\d+)\b/.exec(output)?.[1];
}

interface PushBlock {
  remote: string;
  updates: Array<{ key: string; text: string }>;
}

/**
 * `To <remote>` followed by ref lines, human (`   a..b  main -> main`, ` * [new branch]  x -> x`,
 * ` ! [rejected] …`, ` - [deleted] x`) or `--porcelain` (`*\trefs/heads/x:refs/heads/x\t[new branch]`).
 * A block ends at the first line that is not a ref line, so `From …` fetch lines never count.
 */
function parsePushBlocks(output: string): PushBlock[] {
  const blocks: PushBlock[] = [];
  let current: PushBlock | undefined;
  for (const line of output.split('\n')) {
    const remote = /^To (\S+)$/.exec(line)?.[1];
    if (remote !== undefined) {
      current = { remote, updates: [] };
      blocks.push(current);
      continue;
    }
    if (!current) continue;
    const ref = parseRefLine(line);
    if (ref === undefined) {
      current = undefined;
      continue;
    }
    if (ref) current.updates.push(ref);
  }
  return blocks;
}

/** undefined: not a ref line; null: a ref line that is not an update; else the update. */
function parseRefLine(line: string): { key: string; text: string } | null | undefined {
  let flag: string;
  let summary: string;
  let refs: string;
  const porcelain = /^([ +*!=-])\t([^\t]*)\t(.*)$/.exec(line);
  const human = /^ ([ +*!=-]) (\[[^\]]+\]|[0-9a-f]{4,40}\.\.\.?[0-9a-f]{4,40})\s+(.+?)\s*$/.exec(line);
  if (porcelain) {
    [, flag = '', refs = '', summary = ''] = porcelain;
    refs = refs
      .split(':')
      .map((r) => r.replace(/^refs\/(heads|tags)\//, ''))
      .join(' -> ');
    summary = summary.replace(/\s*\(.*\)$/, '');
  } else if (human) {
    [, flag = '', summary = '', refs = ''] = human;
    refs = refs.replace(/\s*\(.*\)$/, '');
  } else {
    return undefined;
  }
  if (flag !== ' ' && flag !== '+' && flag !== '*') return null; // rejected, deleted, up to date
  const dst = refs.split(' -> ').pop() ?? refs;
  if (/^[0-9a-f]+\.\.\.?[0-9a-f]+$/.test(summary)) return { key: summary, text: `${refs} (${summary})` };
  if (/^\[new (branch|tag|reference)\]$/.test(summary)) return { key: `new:${dst}`, text: `${refs} (${summary.slice(1, -1)})` };
  return null;
}

/** Item k goes to slot k; items beyond the last slot go to the last slot. */
function pairInOrder<T>(items: T[], slots: number): T[][] {
  const result: T[][] = Array.from({ length: slots }, () => []);
  if (slots === 0) return result;
  items.forEach((item, k) => result[Math.min(k, slots - 1)]?.push(item));
  return result;
}

/** FNV-1a, 32 bit, hex: a stable key for commands whose output names no sha. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

// ───────────────────────────── tokenizer ─────────────────────────────
//
// Just enough POSIX shell to find simple commands: words (quote removal, backslash escapes),
// operators (; && || | |& & newline ( )), redirections (dropped, with their target), heredoc bodies
// (skipped), comments, `$(…)` / backticks / `<(…)` (kept verbatim in the word, and lexed on their
// own so commands inside them are seen too). Never throws; unterminated constructs run to the end.

interface Word {
  kind: 'word';
  value: string;
  /** Token lists of the command substitutions inside this word. */
  subs: Token[][];
}
interface Op {
  kind: 'op';
  value: string;
}
type Token = Word | Op;

interface Cursor {
  s: string;
  i: number;
  /** Substitution nesting level of this cursor's text (see MAX_SUBSTITUTION_DEPTH). */
  depth?: number;
}

/** Enters one more substitution level; throws TooComplex beyond the limit. */
function deeper(c: Cursor): number {
  const d = (c.depth ?? 0) + 1;
  if (d > MAX_SUBSTITUTION_DEPTH) throw new TooComplex();
  return d;
}

/** Lexes the inside of `$(` / `<(` at the cursor, one level deeper. */
function lexNested(c: Cursor): Token[] {
  const outer = c.depth;
  c.depth = deeper(c);
  try {
    return lex(c, true);
  } finally {
    c.depth = outer;
  }
}

const WORD_END = new Set([' ', '\t', '\r', '\n', ';', '&', '|', '<', '>', '(', ')']);

function simpleCommands(tokens: Token[]): Word[][] {
  const commands: Word[][] = [];
  let current: Word[] = [];
  for (const t of tokens) {
    if (t.kind === 'word') {
      current.push(t);
      continue;
    }
    if (current.length > 0) commands.push(current);
    current = [];
  }
  if (current.length > 0) commands.push(current);
  return commands;
}

/** Lexes until the end, or (closeParen) until the `)` that closes a `$(`. */
function lex(c: Cursor, closeParen: boolean): Token[] {
  const tokens: Token[] = [];
  const heredocs: Array<{ delim: string; stripTabs: boolean }> = [];
  let depth = 0;
  const s = c.s;
  while (c.i < s.length) {
    const ch = s[c.i];
    const next = s[c.i + 1];
    if (ch === '\n') {
      c.i++;
      tokens.push({ kind: 'op', value: '\n' });
      if (heredocs.length > 0) skipHeredocBodies(c, heredocs.splice(0));
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      c.i++;
      continue;
    }
    if (ch === '\\' && next === '\n') {
      c.i += 2;
      continue;
    }
    if (ch === '#') {
      while (c.i < s.length && s[c.i] !== '\n') c.i++;
      continue;
    }
    if (ch === ')') {
      c.i++;
      if (closeParen && depth === 0) return tokens;
      depth = Math.max(0, depth - 1);
      tokens.push({ kind: 'op', value: ')' });
      continue;
    }
    if (ch === '(') {
      c.i++;
      depth++;
      tokens.push({ kind: 'op', value: '(' });
      continue;
    }
    if ((ch === '<' || ch === '>') && next === '(') {
      const start = c.i;
      c.i += 2;
      const inner = lexNested(c);
      tokens.push({ kind: 'word', value: s.slice(start, c.i), subs: [inner] });
      continue;
    }
    // Redirection (`2>&1`, `> f`, `&> f`, `<<'EOF'`, `<<< word`): dropped together with its target.
    const redirect = /^(\d+|&)?(<<<|<<-|<<|<>|<&|<|>>|>&|>\||>)/.exec(s.slice(c.i, c.i + 16));
    if (redirect) {
      c.i += redirect[0].length;
      while (s[c.i] === ' ' || s[c.i] === '\t') c.i++;
      if (c.i < s.length && !WORD_END.has(s.charAt(c.i))) {
        const target = readWord(c);
        const operator = redirect[2];
        if (operator === '<<' || operator === '<<-') heredocs.push({ delim: target.value, stripTabs: operator === '<<-' });
      }
      continue;
    }
    const op = /^(?:;;&|;;|;&|;|&&|&|\|\||\|&|\|)/.exec(s.slice(c.i, c.i + 3));
    if (op) {
      c.i += op[0].length;
      tokens.push({ kind: 'op', value: op[0] });
      continue;
    }
    tokens.push(readWord(c));
  }
  return tokens;
}

function skipHeredocBodies(c: Cursor, pending: Array<{ delim: string; stripTabs: boolean }>): void {
  const s = c.s;
  for (const { delim, stripTabs } of pending) {
    while (c.i < s.length) {
      let end = s.indexOf('\n', c.i);
      if (end < 0) end = s.length;
      let line = s.slice(c.i, end).replace(/\r$/, '');
      if (stripTabs) line = line.replace(/^\t+/, '');
      c.i = Math.min(end + 1, s.length);
      if (line === delim) break;
    }
  }
}

function readWord(c: Cursor): Word {
  const s = c.s;
  const subs: Token[][] = [];
  let value = '';
  while (c.i < s.length && !WORD_END.has(s.charAt(c.i))) {
    const ch = s[c.i];
    if (ch === '\\') {
      if (s[c.i + 1] !== '\n') value += s[c.i + 1] ?? '';
      c.i += 2;
    } else if (ch === "'") {
      const end = s.indexOf("'", c.i + 1);
      const stop = end < 0 ? s.length : end;
      value += s.slice(c.i + 1, stop);
      c.i = Math.min(stop + 1, s.length);
    } else if (ch === '"') {
      c.i++;
      value += readDoubleQuoted(c, subs);
    } else {
      value += readExpandable(c, subs);
    }
  }
  return { kind: 'word', value, subs };
}

/** A character a word and a double-quoted string read alike: a `$` expansion, a backtick substitution, or itself. */
function readExpandable(c: Cursor, subs: Token[][]): string {
  const ch = c.s.charAt(c.i);
  if (ch === '$') return readDollar(c, subs);
  if (ch === '`') return readBackticks(c, subs);
  c.i++;
  return ch;
}

function readDoubleQuoted(c: Cursor, subs: Token[][]): string {
  const s = c.s;
  let value = '';
  while (c.i < s.length) {
    const ch = s[c.i];
    if (ch === '"') {
      c.i++;
      return value;
    }
    if (ch === '\\') {
      const next = s[c.i + 1];
      if (next === '\n') {
        c.i += 2;
      } else if (next !== undefined && '$`"\\'.includes(next)) {
        value += next;
        c.i += 2;
      } else {
        value += ch;
        c.i++;
      }
    } else {
      value += readExpandable(c, subs);
    }
  }
  return value;
}

/** At `$`: `$(…)`, `$((…))`, `${…}`, `$'…'`, or a plain `$`. Substitutions stay verbatim. */
function readDollar(c: Cursor, subs: Token[][]): string {
  const s = c.s;
  const start = c.i;
  const next = s[c.i + 1];
  if (next === '(' && s[c.i + 2] !== '(') {
    c.i += 2;
    subs.push(lexNested(c));
    return s.slice(start, c.i);
  }
  if (next === '(' || next === '{') {
    const open = next;
    const close = open === '(' ? ')' : '}';
    let depth = 0;
    let j = c.i + 1;
    for (; j < s.length; j++) {
      if (s[j] === open) depth++;
      else if (s[j] === close && --depth === 0) break;
    }
    c.i = Math.min(j + 1, s.length);
    return s.slice(start, c.i);
  }
  if (next === "'") {
    // ANSI-C quoting: decode the common escapes.
    const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };
    let value = '';
    c.i += 2;
    while (c.i < s.length && s[c.i] !== "'") {
      if (s[c.i] === '\\' && c.i + 1 < s.length) {
        const escaped = s.charAt(c.i + 1);
        value += escapes[escaped] ?? `\\${escaped}`;
        c.i += 2;
      } else {
        value += s[c.i++];
      }
    }
    c.i = Math.min(c.i + 1, s.length);
    return value;
  }
  c.i++;
  return '$';
}

function readBackticks(c: Cursor, subs: Token[][]): string {
  const s = c.s;
  const start = c.i;
  let j = c.i + 1;
  while (j < s.length && s[j] !== '`') j += s[j] === '\\' ? 2 : 1;
  const inner = s.slice(start + 1, Math.min(j, s.length)).replace(/\\([`\\$])/g, '$1');
  subs.push(lex({ s: inner, i: 0, depth: deeper(c) }, false));
  c.i = Math.min(j + 1, s.length);
  return s.slice(start, c.i);
}
