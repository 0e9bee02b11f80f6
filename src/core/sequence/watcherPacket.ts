/**
 * The watcher packet: the continuation packet rawr assembles from the session trail when the agent does not write
 * one (or cannot: overflow recovery, `rawr handoff`). It carries, in the packet's four sections, the facts
 * a continuing agent needs first — the current ask, commits by short sha, every file edited, the plan with
 * its open items, the last command and its outcome, the latest tool errors, the next step — densely, so
 * it costs less than the summary a tool would write (measured by `npm run bench:handoff`).
 * Empty facts are left out rather than written as "(none)": every line should carry information.
 */
import type { Trail, TrailToolCall } from '../engine/types';
import type { PlanState } from '../signals/plan';
import { clip as clipText, moreCharacters } from '../text/clip';

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const clip = (s: string, n: number) => clipText(s, n, { marker: moreCharacters });
/** A request from the trail, clipped: the marker counts from its real length (the trail keeps only a clip). */
const clipRequest = (r: Trail['userRequests'][number], text: string, n: number) =>
  clipText(text, n, { marker: moreCharacters, ...(r.chars !== undefined ? { length: r.chars } : {}) });

/** Head and tail of a long output: errors and results are usually at one end or the other. */
export function headTail(text: string, headLines: number, tailLines: number, maxChars: number): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  let out =
    lines.length > headLines + tailLines + 1
      ? [...lines.slice(0, headLines), `… [${lines.length - headLines - tailLines} lines omitted]`, ...lines.slice(-tailLines)].join('\n')
      : lines.join('\n');
  if (out.length > maxChars)
    out = `${out.slice(0, Math.ceil(maxChars * 0.6))}\n… [${out.length - maxChars} characters omitted] …\n${out.slice(-Math.floor(maxChars * 0.4))}`;
  return out;
}

const ends = (s: string, n: number) =>
  s.length > n ? `${s.slice(0, Math.ceil(n * 0.4))} … [${s.length - n} characters omitted] … ${s.slice(-Math.floor(n * 0.6))}` : s;

const TELLING = /error|fail|exception|cannot|can't|undefined|not found|no such|denied|invalid|expected|assert|refused|timed? ?out|fatal|panic|traceback/i;

/**
 * What an error output says, in one line: its first line plus the lines that name the failure (a test
 * runner's or compiler's message is rarely on the first line), without the bare exit-code header.
 */
export function telling(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(Error: )?Exit code -?\d+$/.test(l) && !/^Process exited with code/.test(l));
  const picked: string[] = [];
  for (const l of lines) {
    if (picked.length >= 4) break;
    if ((picked.length === 0 || TELLING.test(l)) && !picked.includes(l)) picked.push(l.length > 200 ? `${l.slice(0, 200)}…` : l);
  }
  return picked.join(' | ');
}

/** A fenced block whose fence cannot be closed by the text inside it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/** Commits once each: a `? subject` entry (no sha seen) is dropped when a sha entry has its subject. */
function commitLines(commits: readonly string[]): string[] {
  const withSha = new Map<string, string>();
  const noSha: string[] = [];
  for (const c of commits) {
    const m = /^([0-9a-f]{7,40})\b\s*(.*)$/.exec(c);
    if (m) {
      const sha = m[1]!.slice(0, 7);
      if (!withSha.has(sha)) withSha.set(sha, `\`${sha}\` ${m[2]}`.trim());
    } else noSha.push(c.replace(/^\?\s*/, ''));
  }
  const subjects = [...withSha.values()].join('\n');
  return [...withSha.values(), ...noSha.filter((s) => !subjects.includes(s)).map((s) => `(sha not seen) ${s}`)];
}

const mark = (status: string) => (status === 'completed' ? 'x' : status === 'in_progress' ? '~' : ' ');

/** The sentence of the agent's last message that says what it does next, if one does. */
export function statedIntent(message: string): string | undefined {
  const sentences = message
    .split(/(?<=[.!?:])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 8);
  const intent = /\b(next|now (i'?ll|i will|let me|we)|let me|i'?ll|i will|remaining|still (need|to)|todo|then)\b/i;
  for (let k = sentences.length - 1; k >= 0; k--) if (intent.test(sentences[k]!)) return sentences[k];
  return undefined;
}

function outcome(c: TrailToolCall & { exitCode?: number }): string {
  if (c.output === undefined) return 'no result yet';
  if (c.exitCode !== undefined) return c.exitCode === 0 && !c.isError ? 'exit 0' : `FAILED, exit ${c.exitCode}`;
  return c.isError ? 'FAILED' : 'ok';
}

export interface WatcherPacketOptions {
  /** How many of the last tool calls to append (input and head/tail of the output). */
  tailCount: number;
}

export function assembleWatcherPacketText(trail: Trail, plan: PlanState | null, o: WatcherPacketOptions): string {
  const out: string[] = ['_Continuation packet assembled by the rawr watcher from the session trail, not written by the agent._'];
  const reqs = trail.userRequests;
  const current = reqs.at(-1);
  const steps = plan?.steps ?? [];
  const open = steps.filter((s) => s.status !== 'completed');
  const inProgress = steps.find((s) => s.status === 'in_progress');

  out.push('', '## What just completed');
  const commits = commitLines(trail.commits);
  if (commits.length) out.push(`- Commits, oldest first: ${commits.join('; ')}`);
  const done = steps.filter((s) => s.status === 'completed');
  if (done.length) out.push(`- Plan steps completed: ${done.map((s) => clip(oneLine(s.text), 200)).join('; ')}`);
  const edited = trail.edited ?? [];
  // Full paths: the packet cannot know the project root, and a shortened path may name another file.
  if (edited.length) out.push(`- Files edited (${edited.length}, most recent last): ${edited.join(', ')}`);
  const read = trail.files.filter((f) => !edited.includes(f)).slice(-8);
  if (read.length) out.push(`- Files also read: ${read.join(', ')}`);
  if (!commits.length && !done.length && !edited.length) out.push('- Nothing committed, completed or edited yet that the trail shows.');

  out.push('', '## Where we are now');
  out.push(`- **Current ask** (the person's latest request, verbatim):`);
  out.push(current ? fenced(clipRequest(current, current.text.trim(), 1500)) : '(no request recorded)');
  const earlier = reqs.slice(0, -1);
  if (earlier.length) {
    const shown = earlier.slice(-6);
    out.push(
      `- Earlier requests, oldest first${earlier.length > shown.length ? ` (${earlier.length - shown.length} older omitted)` : ''}: ${shown.map((r, k) => `(${k + 1}) ${clipRequest(r, oneLine(r.text), 240)}`).join(' ')}`,
    );
  }
  if (steps.length) out.push(`- Plan: ${steps.map((s) => `[${mark(s.status)}] ${clip(oneLine(s.text), 200)}`).join(' · ')}`);
  const last = trail.lastCommand;
  if (last) {
    out.push(`- Last command (${outcome(last)}): \`${clip(oneLine(last.input), 400)}\``);
    if (last.output?.trim()) out.push(fenced(headTail(last.output, 6, 6, 900)));
  }
  const errors = trail.errors ?? [];
  if (errors.length) {
    out.push(`- Latest tool errors, newest last:`);
    for (const e of errors.slice(-3)) out.push(`  - ${e.name} \`${clip(oneLine(e.input), 200)}\` → ${clip(telling(e.output ?? ''), 500)}`);
  }
  // Its end usually says where the agent stopped and what it meant to do next: keep both ends.
  if (trail.lastAgentMessage.trim()) out.push(`- Your last message: ${ends(oneLine(trail.lastAgentMessage), 900)}`);

  out.push('', "## What's next");
  const intent = statedIntent(trail.lastAgentMessage);
  if (inProgress) out.push(`- Next step: finish the step in progress: ${clip(oneLine(inProgress.text), 300)}`);
  else if (open[0]) out.push(`- Next step: ${clip(oneLine(open[0].text), 300)}`);
  else out.push(`- Next step: continue the current ask${intent ? '' : '; check the last command and your last message before repeating anything'}.`);
  if (intent) out.push(`- You had said: "${clip(intent, 300)}"`);
  const rest = open.filter((s) => s !== (inProgress ?? open[0]));
  if (rest.length)
    out.push(
      `- Open plan items after it: ${rest
        .slice(0, 12)
        .map((s) => clip(oneLine(s.text), 200))
        .join('; ')}`,
    );

  out.push('', '## Decisions, invariants and traps');
  out.push('- Do not redo work the commits, completed steps and edited files above show as done; check `git status` / `git log` first.');
  if (errors.length) out.push('- The errors above are the latest failures: do not repeat a failed command unchanged.');

  const tail = trail.toolTail.slice(-o.tailCount);
  if (o.tailCount > 0 && tail.length) {
    out.push('', `## Recent tool calls (last ${tail.length}, oldest first)`);
    for (const t of tail) {
      const res = t.output === undefined ? '(no result)' : `${t.isError ? 'error' : 'result'}: ${clip(oneLine(headTail(t.output, 3, 3, 500)), 500)}`;
      out.push(`- ${t.name} \`${clip(oneLine(t.input), 300)}\` → ${res}`);
    }
  }
  return out.join('\n');
}
