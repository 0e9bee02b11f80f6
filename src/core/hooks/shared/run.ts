/**
 * One agent hook run (Claude Code or Codex): stdin text in, what to print out. The exit code is always
 * 0: a problem (bad input, a corrupt snapshot, a full disk) is one line on stderr and nothing on stdout,
 * so the hook never blocks the person's prompt (exit 2 would block; never used). Only a steered
 * PreCompact refuses, on stdout, and any problem on the way allows the compaction.
 *
 * - PreCompact: writes `.rawr/<agent>/<session>/snapshot-<time>-<n>.json`, pending; prints nothing.
 *   Claude Code, where rawr steers (claude/steer.ts): first the arbiter's answer — a refusal prints
 *   `{"decision":"block","reason":…}` and takes no snapshot (no compaction follows); an allowed
 *   compaction prints the summary instructions (Claude Code appends them to its summary prompt).
 * - PostCompact: confirms the session's latest snapshot (keeping Claude Code's `compact_summary`);
 *   prints nothing.
 * - SessionStart with source `compact`: confirms the latest snapshot, then injects it if this run wins
 *   the claim. Other sources (startup, resume, clear) print nothing.
 * - UserPromptSubmit: injects the latest snapshot if it is confirmed (by a hook above, or by a
 *   compaction record in the transcript after it) and this run wins the claim.
 * An unconfirmed snapshot is never injected: the compaction it was taken for did not happen (a failed
 * `/compact`, an abandoned auto-compaction). The next PreCompact supersedes it (only the latest counts).
 * - PostCompact also computes the repair of the agent's summary against rawr's trail (repairHook.ts).
 * - PostToolUse and UserPromptSubmit (after its handoff, in the same additionalContext): the golden
 *   path's heads-up (claude/golden.ts) when a steered PreCompact asked for the continuation packet, and
 *   the repair of the latest compaction's summary — each once.
 * Injection prints `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":<handoff>}}`.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { loadPromptSet, PROMPT_FILES, type PromptReader } from '../../prompts/promptSet';
import { dirReader, shippedPromptsDir } from '../../prompts/fs';
import { loadPromptSetCached } from '../../prompts/cache';
import { claudeProjectRoot } from './fastPath';
import { parseHookInput, type HookEvent, type HookInput, type PostToolUseInput } from './input';
import { buildSnapshot, parseSnapshot } from './snapshot';
import { injectionText } from './inject';
import type { TranscriptFacts } from './facts';
import { transcriptConfirms } from './confirm';
import { readSteerConfig, settingsWindow, type SteerConfig } from '../claude/steerConfig';
import { newestToolCallHolds } from '../claude/packetCarried';
import { readTailBytes } from './readFrom';
import { lastAllowed, lostAnswerVerdict, steerAtTool, steerPreCompact, type SteeredSession } from '../claude/steer';
import { tailUsage } from '../claude/tailUsage';
import { readPrevious, type ReadBound } from '../claude/steerState';
import { claimHeadsUp } from '../claude/golden';
import { claimRepair, hasRepair, hookLog, saveRepair } from './repairHook';
import { MAX_PACKET_CHARS } from './snapshot';
import {
  claimNow,
  claimOnDelivery,
  claimSnapshot,
  confirmSnapshot,
  isClaimed,
  isConfirmed,
  latestSnapshotFile,
  readMarker,
  readStateFile,
  sessionDir,
  saveCompactSummary,
  writeMarker,
  writeSnapshotFile,
  type AgentId,
  type Delivery,
} from './store';

/** Workspace prompt overrides, as in the VS Code extension (src/host/settings.ts WORKSPACE_PROMPTS_DIR). */
const WORKSPACE_PROMPTS_DIR = path.join('.rawr', 'prompts');

/** What differs between the agents (claude/agent.ts, codex/agent.ts). */
export interface AgentSpec {
  id: AgentId;
  /** Transcript text → facts for the snapshot. */
  readFacts: (text: string) => TranscriptFacts;
  /** The project folder whose `.rawr/<agent>/` holds the state; undefined when there is none. */
  projectRoot: (input: HookInput, env: Record<string, string | undefined>) => string | undefined;
}

export interface HookRunOptions {
  env: Record<string, string | undefined>;
  now?: () => Date;
  gitTimeoutMs?: number;
  /** Prompt readers to use instead of `<root>/.rawr/prompts` + the shipped prompts (tests). */
  promptReaders?: PromptReader[];
  /**
   * Where to keep the parsed prompt set between runs (prompts/cache.ts; the CLI: a per-user cache folder)
   * and the running code's identity (a rebuilt rawr parses again); without it, parsed on each run.
   */
  promptCache?: { dir: string; codeKey: string };
  /**
   * Where a run may hand the writes that do not change its answer (the steering state and log), to be
   * done once the answer is out (the resident hook engine: hookServer.ts). Without it, done in the run.
   */
  later?: (work: () => void) => void;
  /**
   * Where a run hands the records that what it prints for the model was given (the handoff's claim, the
   * repair's, the heads-up's), to be made once its output is delivered (store.ts claimOnDelivery: the
   * hook entries and the resident engine). Without it, made in the run, before it prints (claimNow).
   */
  delivered?: (record: () => void) => void;
  /** The most a steering call reads of the transcript (claude/steerState.ts READ_BOUND; a test lowers it). */
  readBound?: ReadBound;
}

export interface HookRunResult {
  /** What to print on stdout: '' or one JSON object + newline. */
  stdout: string;
  /** Lines for stderr (each a single line). */
  stderr: string[];
  /** What happened, for logs and tests. */
  outcome: 'snapshot' | 'deferred' | 'confirmed' | 'pending' | 'injected' | 'heads_up' | 'repaired' | 'nothing' | 'bad_input' | 'error';
  snapshotFile?: string;
}

/** How this run records what it gives the model (HookRunOptions.delivered). */
const deliveryOf = (opts: HookRunOptions): Delivery => (opts.delivered ? claimOnDelivery(opts.delivered) : claimNow);

const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/** `$CLAUDE_PROJECT_DIR` when it is an existing absolute folder, else the input's `cwd` (fastPath.ts). */
export { claudeProjectRoot };

export async function runHook(agent: AgentSpec, event: HookEvent, stdinText: string, opts: HookRunOptions): Promise<HookRunResult> {
  const tag = `rawr hooks ${agent.id} ${event}`;
  const parsed = parseHookInput(event, stdinText);
  if (!parsed.ok) return { stdout: '', stderr: [`${tag}: ${oneLine(parsed.reason)}; nothing done`], outcome: 'bad_input' };
  const now = opts.now ?? (() => new Date());
  const input = parsed.input;
  try {
    const root = agent.projectRoot(input, opts.env);
    if (root === undefined) return { stdout: '', stderr: [`${tag}: cwd ${input.cwd} is not an existing folder; nothing done`], outcome: 'bad_input' };
    switch (event) {
      case 'PreCompact':
        return await preCompact(agent, tag, input, root, now(), opts);
      case 'PostCompact':
        return await postCompact(agent, tag, input, root, now(), opts);
      case 'SessionStart': {
        if ((input as { source?: string | null }).source !== 'compact') return { stdout: '', stderr: [], outcome: 'nothing' };
        const injected = await maybeInject(agent, tag, event, input, root, now, opts, true);
        // Codex writes its compacted record by the next model request at the latest: a repair PostCompact
        // could not make yet is made here, before the notes for the model are gathered.
        if (agent.id === 'codex') await repairIfMissing(agent, tag, input, root, now(), opts);
        const r = await withModelNotes(agent, event, input, root, now(), opts, injected);
        return agent.id === 'claude' ? await withCompactedNotice(agent, input, root, r) : r;
      }
      case 'UserPromptSubmit': {
        const r = await maybeInject(agent, tag, event, input, root, now, opts, false);
        return await withModelNotes(agent, event, input, root, now(), opts, r);
      }
      case 'PostToolUse': {
        const stderr = agent.id === 'claude' ? await steerAtToolResult(tag, input as PostToolUseInput, root, now(), opts) : [];
        return await withModelNotes(agent, event, input, root, now(), opts, { stdout: '', stderr, outcome: 'nothing' });
      }
      default: {
        const _: never = event;
        return _;
      }
    }
  } catch (err) {
    return { stdout: '', stderr: [`${tag}: ${oneLine((err as Error).message)}; nothing injected`], outcome: 'error' };
  }
}

/**
 * What else the model should read at this hook, added to `r` (which may already inject the handoff): the
 * golden path's heads-up (claude/golden.ts) and the repair of the agent's summary (repairHook.ts), each
 * for the one run that claims it. One `additionalContext` carries them all.
 */
async function withModelNotes(
  agent: AgentSpec,
  event: HookEvent,
  input: HookInput,
  root: string,
  now: Date,
  opts: HookRunOptions,
  r: HookRunResult,
): Promise<HookRunResult> {
  const dir = sessionDir(root, agent.id, input.session_id, false);
  if (!dir) return r;
  const texts: string[] = [];
  let outcome = r.outcome;
  if (r.outcome === 'injected') {
    const prev = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    texts.push(prev);
  }
  const delivery = deliveryOf(opts);
  const repair = await claimRepair(dir, event, now, delivery);
  if (repair) {
    texts.push(repair);
    if (outcome !== 'injected') outcome = 'repaired';
  }
  const heads = await claimHeadsUp(dir, event, now, delivery);
  let notice: string | undefined;
  if (heads) {
    texts.push(heads.text);
    // The person sees one line (Claude Code shows a hook's systemMessage: "PostToolUse:Bash says: …").
    notice = `rawr: phase boundary at ${heads.boundary}: the agent writes its continuation packet (${heads.packet}), then Claude Code compacts.`;
    if (outcome !== 'injected' && outcome !== 'repaired') outcome = 'heads_up';
  }
  if (texts.length === 0 || (texts.length === 1 && r.outcome === 'injected')) return r;
  const out = { ...(notice ? { systemMessage: notice } : {}), hookSpecificOutput: { hookEventName: event, additionalContext: texts.join('\n\n') } };
  return { ...r, stdout: `${JSON.stringify(out)}\n`, outcome };
}

/**
 * Claude Code shows the person a SessionStart(compact) hook's `systemMessage` ("SessionStart:compact says:
 * …"; measured on 2.1.332: a PreCompact hook's is dropped, refusing or allowing). So the person learns
 * here where rawr let the compaction happen and that its handoff went to the model — the model does not
 * read this message (its handoff is in additionalContext).
 */
async function withCompactedNotice(agent: AgentSpec, input: HookInput, root: string, r: HookRunResult): Promise<HookRunResult> {
  const dir = sessionDir(root, agent.id, input.session_id, false);
  const allowed = dir ? await lastAllowed(dir) : undefined;
  const gave = r.outcome === 'injected' || r.outcome === 'repaired' || r.outcome === 'heads_up';
  if (!allowed && !gave) return r;
  const handoff = 'its handoff went to the model with the summary';
  const message = allowed ? `rawr: ${allowed.text}${gave ? `; ${handoff}` : ''}.` : `rawr: ${handoff}.`;
  const prev = r.stdout.trim() ? (JSON.parse(r.stdout) as Record<string, unknown>) : {};
  return { ...r, stdout: `${JSON.stringify({ ...prev, systemMessage: message })}\n` };
}

/** The prompt files of the project (`.rawr/prompts/`) over the shipped ones: the settings and texts the hooks use. */
const promptReadersOf = (root: string, opts: HookRunOptions) =>
  opts.promptReaders ?? [dirReader(path.join(root, WORKSPACE_PROMPTS_DIR)), dirReader(shippedPromptsDir())];

/** The prompt set of the project (promptReadersOf), parsed or from the cache between runs (HookRunOptions.promptCacheKey). */
function promptSetOf(root: string, opts: HookRunOptions) {
  const readers = promptReadersOf(root, opts);
  if (opts.promptReaders || !opts.promptCache) return loadPromptSet(readers);
  // One file per project (its prompt overrides differ) and per rawr build (two installed rawrs, or the
  // CLI beside the hooks entry, would otherwise replace each other's entry on every call).
  const file = path.join(opts.promptCache.dir, `${createHash('sha256').update(`${root}\0${opts.promptCache.codeKey}`).digest('hex').slice(0, 24)}.json`);
  return loadPromptSetCached(readers, file, opts.promptCache.codeKey);
}

/** What both steering hooks are given about the session (claude/steer.ts SteeredSession). */
async function steerSession(
  sessionId: string,
  transcriptPath: string,
  root: string,
  dir: string,
  config: SteerConfig,
  now: Date,
  opts: HookRunOptions,
): Promise<SteeredSession> {
  const prompts = promptSetOf(root, opts);
  return {
    dir,
    root,
    sessionId,
    transcript: path.resolve(root, transcriptPath),
    config,
    settings: prompts.settings,
    prompts: prompts.prompts,
    env: opts.env,
    settingsWindow: await settingsWindow(root, opts.env.HOME, config.autoCompactWindow),
    now,
  };
}

/** Claude Code's PostToolUse where rawr steers: a boundary in the tool's result starts the golden path now (claude/steer.ts steerAtTool). */
async function steerAtToolResult(tag: string, input: PostToolUseInput, root: string, now: Date, opts: HookRunOptions): Promise<string[]> {
  if (!input.transcript_path || input.tool_name !== 'Bash') return [];
  const config = await readSteerConfig(root);
  if (!config?.steer) return [];
  try {
    await steerAtTool({
      ...(await steerSession(input.session_id, input.transcript_path, root, sessionDir(root, 'claude', input.session_id, true)!, config, now, opts)),
      toolName: input.tool_name,
      toolUseId: input.tool_use_id,
      toolInput: input.tool_input,
      toolResponse: input.tool_response,
    });
    return [];
  } catch (err) {
    return [`${tag}: no boundary check at this tool call (${oneLine((err as Error).message)})`];
  }
}

/** A PreCompact refused with rawr's reason (Claude Code's `{"decision":"block"}`): the steered verdict's and a lost answer's. */
const refusal = (text: string, stderr: string[]): HookRunResult => ({
  stdout: `${JSON.stringify({ decision: 'block', reason: `rawr: ${text}` })}\n`,
  stderr,
  outcome: 'deferred',
});

/** Claude Code's PreCompact where rawr steers: the verdict (claude/steer.ts), or null to go on as without steering. */
async function steer(
  tag: string,
  input: HookInput,
  root: string,
  dir: string,
  now: Date,
  opts: HookRunOptions,
): Promise<{ refuse?: HookRunResult; instructions?: string; packet?: { file: string; text: string }; stderr: string[] }> {
  const i = input as { trigger?: string | null };
  const config = await readSteerConfig(root);
  if (!input.transcript_path || !config?.steer) return { stderr: [] };
  try {
    const run = await steerPreCompact({
      ...(await steerSession(input.session_id, input.transcript_path, root, dir, config, now, opts)),
      trigger: i.trigger,
      ...(opts.later ? { later: opts.later } : {}),
      ...(opts.readBound ? { readBound: opts.readBound } : {}),
    });
    const v = run.verdict;
    if (!v.allow) return { refuse: refusal(v.text, []), stderr: [] };
    return { stderr: [], ...(v.instructions ? { instructions: `rawr (${v.text}): ${v.instructions}` } : {}), ...(run.packet ? { packet: run.packet } : {}) };
  } catch (err) {
    // Never refuse on a problem: Claude Code then compacts as it would without rawr.
    return { stderr: [`${tag}: steering skipped (${oneLine((err as Error).message)}); compaction allowed`] };
  }
}

/**
 * What Claude Code's PreCompact prints when the resident engine took the run and never answered (`why`;
 * src/cli/hooks/main.ts, hook.sh): not the run again (the engine may have acted on it), only the verdict
 * from the transcript's tail (claude/steer.ts lostAnswerVerdict) — for an automatic compaction where rawr
 * steers, a refusal only where rawr's own steering may refuse; else nothing (allowed), stderr says why.
 * It writes nothing: the session's state and log are the stalled engine's, which may still write them
 * (the next call reads what it wrote); the prompt set is parsed, not cached (the cache is the engine's too).
 */
export async function lostPreCompact(stdinText: string, why: string, opts: Pick<HookRunOptions, 'env' | 'promptReaders'>): Promise<HookRunResult> {
  const tag = 'rawr hooks claude PreCompact';
  const head = `${tag}: the resident hook engine did not answer (${oneLine(why)})`;
  const nothing = (what: string): HookRunResult => ({ stdout: '', stderr: [`${head}; ${what}`], outcome: 'nothing' });
  const parsed = parseHookInput('PreCompact', stdinText);
  if (!parsed.ok) return nothing('nothing done');
  const input = parsed.input as HookInput & { trigger?: string | null };
  if (input.trigger !== 'auto') return nothing('nothing done');
  try {
    const root = claudeProjectRoot(input, opts.env);
    const config = root === undefined ? null : await readSteerConfig(root);
    if (root === undefined || !config?.steer || !input.transcript_path) return nothing('nothing done (rawr does not steer here)');
    const transcript = path.resolve(root, input.transcript_path);
    const dir = sessionDir(root, 'claude', input.session_id, false);
    const v = lostAnswerVerdict({
      trigger: input.trigger,
      previous: dir ? await readPrevious(dir, transcript) : null,
      config,
      settings: promptSetOf(root, opts).settings,
      env: opts.env,
      settingsWindow: await settingsWindow(root, opts.env.HOME, config.autoCompactWindow),
      tail: await tailUsage(transcript).catch(() => null),
    });
    if (v.allow) return nothing(v.text);
    return refusal(v.text, [`${head}; ${v.text.replace(/^.*?; /, '')}`]);
  } catch (err) {
    return nothing(`compaction allowed (${oneLine((err as Error).message)})`);
  }
}

/** Whether the transcript's newest tool call holds the packet (claude/packetCarried.ts): its last 1 MB, read bounded. */
async function packetCarriedIn(root: string, transcript: string | null | undefined, packetText: string): Promise<boolean> {
  if (!transcript) return false;
  try {
    const { bytes } = await readTailBytes(path.resolve(root, transcript), 1024 * 1024);
    return newestToolCallHolds(bytes.toString('utf8'), packetText);
  } catch {
    return false; // unreadable: quoted, as before
  }
}

async function preCompact(agent: AgentSpec, tag: string, input: HookInput, root: string, now: Date, opts: HookRunOptions): Promise<HookRunResult> {
  const i = input as { trigger?: string | null; custom_instructions?: string | null };
  // The folder (and its .gitignore) first, so git status in the snapshot does not list rawr's own state.
  const dir = sessionDir(root, agent.id, input.session_id, true)!;
  const steered = agent.id === 'claude' ? await steer(tag, input, root, dir, now, opts) : { stderr: [] };
  if (steered.refuse) return steered.refuse;
  const { snapshot, warnings } = await buildSnapshot({
    agent: agent.id,
    readFacts: agent.readFacts,
    root,
    sessionId: input.session_id,
    transcriptPath: input.transcript_path,
    trigger: i.trigger,
    customInstructions: i.custom_instructions,
    now,
    ...(opts.gitTimeoutMs !== undefined ? { gitTimeoutMs: opts.gitTimeoutMs } : {}),
  });
  const packet = steered.packet
    ? {
        file: steered.packet.file,
        text: steered.packet.text.slice(0, MAX_PACKET_CHARS),
        ...((await packetCarriedIn(root, input.transcript_path, steered.packet.text)) ? { carried: true } : {}),
      }
    : undefined;
  const file = writeSnapshotFile(dir, now, packet ? { ...snapshot, packet } : snapshot);
  return {
    stdout: steered.instructions ? `${steered.instructions}\n` : '',
    stderr: [...steered.stderr, ...warnings.map((w) => `${tag}: ${oneLine(w)}`)],
    outcome: 'snapshot',
    snapshotFile: file,
  };
}

/**
 * Claude Code 2.1 runs SessionStart(compact) before PostCompact (it may have injected already), so the
 * summary is kept whatever the snapshot's state; the confirmation matters for a later UserPromptSubmit.
 */
async function postCompact(agent: AgentSpec, tag: string, input: HookInput, root: string, now: Date, opts: HookRunOptions): Promise<HookRunResult> {
  const dir = sessionDir(root, agent.id, input.session_id, false);
  const latest = dir ? latestSnapshotFile(dir) : null;
  if (!dir || !latest) return { stdout: '', stderr: [], outcome: 'nothing' };
  const i = input as { trigger?: string | null; compact_summary?: string | null };
  const trigger = i.trigger ? { trigger: i.trigger } : {};
  const first = i.compact_summary ? saveCompactSummary(latest.file, { at: now.toISOString(), ...trigger, compactSummary: i.compact_summary }) : false;
  confirmSnapshot(latest.file, { by: 'PostCompact', at: now.toISOString(), ...trigger });
  // Claude Code gives its summary here (once: `first`); Codex gives none, its rollout's compacted record has it.
  const repairNow = i.compact_summary ? first : agent.id === 'codex' && !hasRepair(latest.file);
  const stderr = repairNow ? await repairLatest(agent, tag, dir, root, latest.file, i.compact_summary ?? undefined, i.trigger ?? null, now, opts) : [];
  return { stdout: '', stderr, outcome: 'confirmed', snapshotFile: latest.file };
}

/**
 * The repair of the agent's summary at the latest snapshot's compaction, for the next hook the model
 * reads (repairHook.ts); `summary` from the payload, else from the transcript's compaction record (Codex).
 * A problem only skips it (a line for stderr).
 */
async function repairLatest(
  agent: AgentSpec,
  tag: string,
  dir: string,
  root: string,
  snapshotFile: string,
  summary: string | undefined,
  trigger: string | null,
  now: Date,
  opts: HookRunOptions,
): Promise<string[]> {
  try {
    const text = await readStateFile(snapshotFile);
    const parsed = text === null ? null : parseSnapshot(text);
    if (!parsed?.ok) return [];
    const prompts = promptSetOf(root, opts);
    await saveRepair({
      agent: agent.id,
      dir,
      root,
      snapshotFile,
      snapshot: parsed.snapshot,
      ...(summary !== undefined ? { summary: summary.slice(0, 400_000) } : {}),
      trigger,
      settings: prompts.settings,
      prompts: prompts.prompts,
      now,
    });
    return [];
  } catch (err) {
    return [`${tag}: no repair of the summary (${oneLine((err as Error).message)})`];
  }
}

async function repairIfMissing(agent: AgentSpec, tag: string, input: HookInput, root: string, now: Date, opts: HookRunOptions): Promise<void> {
  const dir = sessionDir(root, agent.id, input.session_id, false);
  const latest = dir ? latestSnapshotFile(dir) : null;
  if (!dir || !latest || hasRepair(latest.file) || !isConfirmed(latest.file)) return;
  await repairLatest(agent, tag, dir, root, latest.file, undefined, null, now, opts);
}

async function maybeInject(
  agent: AgentSpec,
  tag: string,
  event: HookEvent,
  input: HookInput,
  root: string,
  now: () => Date,
  opts: HookRunOptions,
  confirmsNow: boolean,
): Promise<HookRunResult> {
  const nothing: HookRunResult = { stdout: '', stderr: [], outcome: 'nothing' };
  const dir = sessionDir(root, agent.id, input.session_id, false);
  const latest = dir ? latestSnapshotFile(dir) : null;
  if (!dir || !latest || isClaimed(latest.file)) return nothing;
  const marker = await readMarker(dir);
  if (marker && Date.parse(marker.snapshotTime) > latest.time) return nothing; // injected a newer one already
  const rel = path.relative(root, latest.file).split(path.sep).join('/');
  const text = await readStateFile(latest.file);
  const parsed = text === null ? { ok: false as const, reason: 'it disappeared' } : parseSnapshot(text);

  if (!confirmsNow && !isConfirmed(latest.file)) {
    const transcript = input.transcript_path ?? (parsed.ok ? parsed.snapshot.transcript.path : undefined);
    const offset = parsed.ok ? parsed.snapshot.transcript.size : undefined;
    if (!transcript || !(await transcriptConfirms(agent.id, path.resolve(root, transcript), offset, latest.time))) {
      return { ...nothing, outcome: 'pending', snapshotFile: latest.file };
    }
    confirmSnapshot(latest.file, { by: 'transcript', at: now().toISOString() });
  } else if (confirmsNow) {
    confirmSnapshot(latest.file, { by: event, at: now().toISOString() });
  }

  const delivery = deliveryOf(opts);
  /** The claim, and the marker of the newest injection once it is made (`then`: the log). */
  const claim = (then?: () => void) =>
    delivery(() => {
      if (!claimSnapshot(latest.file, event, now())) return false;
      writeMarker(dir, { snapshot: path.basename(latest.file), snapshotTime: new Date(latest.time).toISOString(), injectedAt: now().toISOString(), event });
      then?.();
      return true;
    });
  const problem = !parsed.ok ? parsed.reason : parsed.snapshot.sessionId !== input.session_id ? 'it belongs to another session' : undefined;
  if (problem !== undefined || !parsed.ok) {
    // Consumed like an injected one, so the problem is reported once, not on every prompt.
    if (claim()) return { stdout: '', stderr: [`${tag}: snapshot ${rel} is unusable (${oneLine(problem ?? 'invalid')}); nothing injected`], outcome: 'error' };
    return nothing;
  }
  const prompts = promptSetOf(root, opts);
  const injection = injectionText(prompts.prompts, parsed.snapshot, rel);
  // Claimed last (or once delivered: deliveryOf), so a run that cannot print it never takes it from the next.
  if (!claim(() => hookLog(dir, { kind: 'injected', at: now().toISOString(), what: 'handoff', event, chars: injection.length }))) return nothing;
  const stderr = prompts.problems
    .filter((p) => p.severity === 'error' && p.file.endsWith(PROMPT_FILES.handoff))
    .map((p) => `${tag}: ${p.file}:${p.line}:${p.column}: ${oneLine(p.message)}`);
  const out = { hookSpecificOutput: { hookEventName: event, additionalContext: injection } };
  return { stdout: `${JSON.stringify(out)}\n`, stderr, outcome: 'injected', snapshotFile: latest.file };
}
