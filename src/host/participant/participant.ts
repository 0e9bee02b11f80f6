/**
 * The @rawr chat participant (a plain handler, as in chat-sample). It finds its thread by the id it
 * returned in ChatResult.metadata, runs the turn, and keeps the thread consistent whatever happens:
 * model errors, cancellation and a missing model end with a clear message, never a half-done thread.
 */
import * as vscode from 'vscode';
import { unansweredToolCalls } from '../../core/thread/thread';
import { newThreadId, Session, type SessionActivity, type SessionDeps, type StatusView } from './session';
import { note } from './chatText';
import { showStatus, undoLastCompaction } from './slashCommands';
import { Turn } from './turn';
import { IdleCompactor } from './idleCompactor';
import { restrictedModeNotice } from './agentTools';
import { withAttachments } from './attachments';
import { describeModelError } from './modelErrors';
import { SessionCache, type SessionCacheOptions } from './sessionCache';

export const PARTICIPANT_ID = 'rawr.rawr';

const PANEL_CANCEL_NOTE =
  '\n\n_[rawr] stopped from the Rawr panel: the compaction sequence was cancelled and the thread was not compacted. Send a message to continue._';

export interface RawrChatResult extends vscode.ChatResult {
  metadata: { rawrThreadId: string };
}

/** The thread id of the last @rawr answer in this chat, if any. */
export function threadIdFrom(context: vscode.ChatContext): string | undefined {
  for (let i = context.history.length - 1; i >= 0; i--) {
    const turn = context.history[i];
    if (turn instanceof vscode.ChatResponseTurn && turn.participant === PARTICIPANT_ID) {
      const id = (turn.result.metadata as { rawrThreadId?: unknown } | undefined)?.rawrThreadId;
      if (typeof id === 'string') return id;
    }
  }
  return undefined;
}

export class Participant implements vscode.Disposable {
  /** The threads in use; the others are reopened from the core on first use (sessionCache.ts). */
  private readonly sessions: SessionCache;
  /** The thread of the most recent request: what "Rawr: Compact Now" and the status bar refer to. */
  activeThreadId: string | undefined;
  // Panel hook: the activity of every session of this window, in one stream (see SessionActivity).
  private readonly activity = new vscode.EventEmitter<SessionActivity>();
  readonly onActivity = this.activity.event;

  constructor(
    private readonly deps: SessionDeps,
    cache: SessionCacheOptions = {},
  ) {
    this.sessions = new SessionCache((id) => id === this.activeThreadId, cache);
  }

  async session(threadId: string): Promise<Session> {
    let s = this.sessions.get(threadId);
    if (!s) {
      s = await Session.open(this.deps, threadId);
      // Opened meanwhile by another caller: one session per thread (the first), this one is dropped.
      const first = this.sessions.get(threadId);
      if (first) {
        s.dispose();
        return first;
      }
      s.attachIdle(new IdleCompactor(s));
      s.onActivity((a) => {
        if (a.kind === 'step') this.sessions.stepped(a.threadId);
        this.activity.fire(a);
      }); // disposed with the session's emitter
      this.sessions.add(s);
    }
    return s;
  }

  /** How many sessions this window holds in memory (the rest are in the core's logs). */
  sessionsInMemory(): number {
    return this.sessions.size;
  }

  /**
   * After a window reload: the thread of the last request is the active one again (what the status bar,
   * the panel's "follow" and the log export refer to), shown with the last count its log holds. Does
   * nothing when a request already made another thread active, or the thread has no log.
   */
  async restoreActive(threadId: string): Promise<boolean> {
    if (this.activeThreadId || !(await this.deps.core.listThreads()).includes(threadId)) return false;
    const s = await this.session(threadId);
    if (this.activeThreadId) return false;
    this.activeThreadId = threadId;
    const view = s.loggedStatus();
    if (view) this.deps.onStatus(view);
    return true;
  }

  /** Whether this window runs a session for the thread (the panel says so: only live sessions hear the bus). */
  isOpen(threadId: string): boolean {
    return this.sessions.has(threadId);
  }

  readonly handler: vscode.ChatRequestHandler = async (request, context, stream, token): Promise<RawrChatResult> => {
    const known = threadIdFrom(context);
    const threadId = known ?? newThreadId();
    this.activeThreadId = threadId;
    this.deps.onActiveThread?.(threadId);
    const result: RawrChatResult = { metadata: { rawrThreadId: threadId } };
    // A new chat has no count yet: the status bar must not go on showing the previous thread's.
    if (!known) this.deps.onStatus(emptyStatus(threadId));
    if (request.command === 'help') {
      stream.markdown(HELP);
      return result;
    }
    if (!known && (request.command === 'status' || request.command === 'undo')) {
      stream.markdown(request.command === 'undo' ? 'Nothing to undo: this chat has no @rawr thread yet.' : NO_THREAD_STATUS);
      return result;
    }
    const session = await this.session(threadId);
    if (!request.model) {
      stream.markdown('No language model is selected. Pick one in the Chat view, or configure an OpenAI-compatible endpoint (`rawr.openai.baseUrl`).');
      // The Getting Started walkthrough's first step sets one up (package.json `contributes.walkthroughs`).
      stream.button({ command: 'rawr.getStarted', title: 'Get Started: Choose a Model' });
      return result;
    }
    // The panel's Cancel (Session.cancel) stops this request through this source, linked to the chat's Stop.
    const cts = new vscode.CancellationTokenSource();
    const linked = token.onCancellationRequested(() => cts.cancel());
    if (token.isCancellationRequested) cts.cancel();
    const detach = session.attachRequest(cts);
    const byPanel = () => cts.token.isCancellationRequested && !token.isCancellationRequested;
    let stoppedByPanel: boolean;
    const turn = new Turn(session, request.model, stream, cts.token, request.toolInvocationToken);
    try {
      if (session.takeOrphanedSequence()) {
        // Left running by an earlier window: nothing would ever answer it, and it would hold this message.
        const out = await session.step({ type: 'cancel', at: session.clock.now() });
        if (out.commands.length || out.facts.length)
          stream.markdown(note('A compaction sequence was left unfinished (the window reloaded during it); it is cancelled, and the thread is unchanged.'));
        await session.executor().run(out.commands);
      }
      // Back after a while: a compaction that started while the person was away finishes first (Stop cancels it).
      await session.idle?.returning(stream, cts.token);
      const slash = { session, model: request.model, token: cts.token, tools: turn.tools(), out: stream };
      switch (request.command) {
        case 'status':
          await showStatus(slash);
          break;
        case 'undo':
          await undoLastCompaction(slash);
          break;
        case 'compact':
          await turn.compactNow(request.prompt);
          break;
        case undefined: // a plain message
        default: {
          restrictedModeNotice(stream);
          const attached = await withAttachments(request, request.model, cts.token);
          if (attached.lines.length) stream.markdown(`\n\n${attached.lines.join('  \n')}\n\n`);
          await turn.userMessage(attached.text);
        }
      }
      // A count or a boundary noted after the last step still reaches the core (usually nothing is left).
      await session.flush();
    } catch (err) {
      await this.recover(session, err, stream, cts.token);
      if (byPanel()) {
        stream.markdown(PANEL_CANCEL_NOTE);
        return result;
      }
      return { ...result, errorDetails: { message: describeError(err) } };
    } finally {
      linked.dispose();
      detach();
      stoppedByPanel = byPanel();
      cts.dispose();
    }
    if (stoppedByPanel) stream.markdown(PANEL_CANCEL_NOTE);
    return result;
  };

  /**
   * After an error or cancel mid-sequence: the arbiter hears a cancel, so it returns to idle and frees held
   * input (its commands run in the executor like any others), and every tool call gets a result.
   */
  private async recover(session: Session, err: unknown, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<void> {
    this.deps.log.warn(`[${session.threadId}] request ended with ${describeError(err)}`);
    // After a Stop nobody reads this request's stream any more; after an error the person does.
    const exec = session.executor(token.isCancellationRequested ? {} : { out: stream });
    if (session.sequenceRunning) await exec.feed({ type: 'cancel', at: session.clock.now() });
    // Every tool call in the thread must have its result, or the next request would be rejected.
    for (const id of unansweredToolCalls(session.messages)) {
      const text = 'Error: the request ended before this tool ran.';
      await session.append({ role: 'tool', toolCallId: id, name: 'unknown', text, isError: true });
      await exec.feed({ type: 'tool_result', at: session.clock.now(), id, output: text, isError: true });
    }
  }

  dispose(): void {
    this.sessions.clear(); // disposes every session
    this.activity.dispose();
  }
}

/** The status of a thread nothing has been counted for yet: no percent, no tier. */
function emptyStatus(threadId: string): StatusView {
  return { threadId, percentRemaining: null, tier: null, sequenceRunning: false, lastDecision: null, usedTokens: null, window: null };
}

const NO_THREAD_STATUS = 'This chat has no @rawr thread yet: send `@rawr` a message to start one (`/help` says what rawr does).';

export const HELP = [
  '**@rawr** runs your request as an agent and compacts its own context at phase boundaries — a commit, a completed plan step, the agent finishing — instead of at a token threshold mid-step.',
  '',
  "When the context runs low and such a boundary comes, you see the golden path: a heads-up to the agent, the agent's continuation packet, the compaction (“Context compacted — …”), and the handoff, after which the agent continues where it was. A message you send meanwhile is held and delivered unchanged after the handoff.",
  '',
  '- `/status` — context left, tier, boundaries seen, the last decision and why',
  '- `/compact [instructions]` — compact now (optional instructions for the summary)',
  '- `/undo` — restore the thread as it was before the last compaction',
  '- `/help` — this text',
  '',
  'The status bar shows the context left; click it for the Rawr panel (decisions, boundaries, past compactions). Settings: search "rawr" in the Settings editor.',
].join('\n');

export function describeError(err: unknown): string {
  return describeModelError(err);
}
