/**
 * The @rawr chat participant (a plain handler, as in chat-sample). It finds its thread by the id it
 * returned in ChatResult.metadata, runs the turn, and keeps the thread consistent whatever happens:
 * model errors, cancellation and a missing model end with a clear message, never a half-done thread.
 */
import * as vscode from 'vscode';
import { newThreadId, Session, type SessionDeps } from './session';
import { Turn } from './turn';

export const PARTICIPANT_ID = 'rawr.rawr';

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
  private sessions = new Map<string, Session>();
  /** The thread of the most recent request: what "Rawr: Compact Now" and the status bar refer to. */
  activeThreadId: string | undefined;

  constructor(private readonly deps: SessionDeps) {}

  async session(threadId: string): Promise<Session> {
    let s = this.sessions.get(threadId);
    if (!s) {
      s = await Session.open(this.deps, threadId);
      this.sessions.set(threadId, s);
    }
    return s;
  }

  readonly handler: vscode.ChatRequestHandler = async (request, context, stream, token): Promise<RawrChatResult> => {
    const threadId = threadIdFrom(context) ?? newThreadId();
    this.activeThreadId = threadId;
    const result: RawrChatResult = { metadata: { rawrThreadId: threadId } };
    const session = await this.session(threadId);
    if (!request.model) {
      stream.markdown('No language model is selected. Pick one in the Chat view, or configure an OpenAI-compatible endpoint (`rawr.openai.baseUrl`).');
      return result;
    }
    const turn = new Turn(session, request.model, stream, token, request.toolInvocationToken);
    try {
      switch (request.command) {
        case 'status':
          await turn.status();
          break;
        case 'undo':
          await turn.undo();
          break;
        case 'compact':
          await turn.compactNow(request.prompt);
          break;
        default:
          await turn.userMessage(request.prompt);
      }
    } catch (err) {
      await this.recover(session, err, stream, token);
      return { ...result, errorDetails: { message: describeError(err) } };
    }
    return result;
  };

  /** After an error or cancel mid-sequence: tell the arbiter, so it returns to idle and frees held input. */
  private async recover(session: Session, err: unknown, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<void> {
    this.deps.log.warn(`[${session.threadId}] request ended with ${describeError(err)}`);
    if (session.sequenceRunning) {
      const effects = await session.step({ type: 'cancel', at: Date.now() });
      for (const fx of effects) {
        if (fx.type === 'abort_compaction') await session.step({ type: 'compaction_failed', at: Date.now(), seqId: fx.seqId, error: 'request ended' });
        if (fx.type === 'deliver_queued_input') await session.append({ role: 'user', text: fx.text });
      }
      session.sequenceRunning = false;
      if (!token.isCancellationRequested) stream.markdown('\n\n_[rawr] the compaction sequence was stopped; the thread is unchanged._');
    }
    // Every tool call in the thread must have its result, or the next request would be rejected.
    const open = new Set<string>();
    for (const m of session.messages) {
      if (m.role === 'assistant') for (const c of m.toolCalls ?? []) open.add(c.id);
      else if (m.role === 'tool') open.delete(m.toolCallId);
    }
    for (const id of open) {
      const text = 'Error: the request ended before this tool ran.';
      await session.append({ role: 'tool', toolCallId: id, name: 'unknown', text, isError: true });
      await session.step({ type: 'tool_result', at: Date.now(), id, output: text, isError: true });
    }
  }

  dispose(): void {
    for (const [, s] of this.sessions) s.dispose();
    this.sessions.clear();
  }
}

export function describeError(err: unknown): string {
  if (err instanceof vscode.LanguageModelError) return `The language model request failed (${err.code || 'error'}): ${err.message}`;
  if (err instanceof vscode.CancellationError) return 'Cancelled.';
  return err instanceof Error ? err.message : String(err);
}
