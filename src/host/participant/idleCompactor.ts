/**
 * Idle compaction in the extension host (docs/user-guide.md, "Compaction while you are away"). The arbiter arms a
 * watch (`arm_idle`) when a turn ends at a boundary in a tier where it waited; this class holds its timer.
 * When the timer ends with nobody using the thread, the golden path runs in the background — the same
 * `timeout` event, the same executor and the same agent model calls as in a chat request, only with no
 * chat to show them in — so the person's next message starts on a small context. Their next request
 * waits for it (or, stopped, cancels it cleanly: the arbiter ends the sequence and the thread is either
 * untouched or fully swapped), then opens with a receipt of what happened while they were away.
 */
import * as vscode from 'vscode';
import { closeWords } from '../../core/engine/step';
import { kTokens } from '../../core/text/units';
import type { Fact } from '../../core/engine/types';
import type { ChatOutput } from './ports';
import type { IdleWatcher, Session } from './session';
import { note } from './chatText';
import { Turn } from './turn';

interface Armed {
  timerId: string;
  timer: { dispose(): void };
  model: vscode.LanguageModelChat;
}

/** A chat output nobody reads now: kept for the log (the panel has the steps themselves). */
function bufferOutput(): ChatOutput & { text(): string } {
  let text = '';
  return {
    markdown: (v: string | vscode.MarkdownString) => void (text += typeof v === 'string' ? v : v.value),
    progress: (v: string) => void (text += `\n<progress:${v}>\n`),
    button: () => undefined,
    text: () => text,
  };
}

export class IdleCompactor implements IdleWatcher {
  private armed: Armed | undefined;
  private job: { done: Promise<void>; cancel: vscode.CancellationTokenSource } | undefined;
  /** What the person is told first when they return: set by a background compaction, shown once. */
  private receipt: string | undefined;

  constructor(private readonly session: Session) {}

  /** A background compaction runs (the session cache keeps the thread in memory meanwhile). */
  get running(): boolean {
    return this.job !== undefined;
  }

  /** The arbiter's arm_idle: the timer starts now; the agent's model of the turn that ended does the work. */
  arm(timerId: string, ms: number, model: vscode.LanguageModelChat | undefined): void {
    this.disarm();
    if (!model) {
      // Only a chat request knows the model (a boundary from the bus never arms): nothing could run it.
      this.session.deps.log.info(`[${this.session.threadId}] idle compaction not armed: no model to run it with`);
      return;
    }
    const timer = this.session.clock.setTimer(() => this.fire(timerId), ms);
    this.armed = { timerId, timer, model };
  }

  /** The arbiter's cancel_timer: something happened in the thread (or the setting went off). */
  cancel(timerId: string): void {
    if (this.armed?.timerId === timerId) this.disarm();
  }

  private disarm(): void {
    this.armed?.timer.dispose();
    this.armed = undefined;
  }

  private fire(timerId: string): void {
    const armed = this.armed;
    if (!armed || armed.timerId !== timerId) return;
    this.armed = undefined;
    // A request started meanwhile: the person is back, their message disarms the watch.
    if (this.session.requestRunning || this.job) return;
    const cancel = new vscode.CancellationTokenSource();
    const done = this.runInBackground(timerId, armed.model, cancel).finally(() => {
      cancel.dispose();
      this.job = undefined;
    });
    this.job = { done, cancel };
  }

  private async runInBackground(timerId: string, model: vscode.LanguageModelChat, cancel: vscode.CancellationTokenSource): Promise<void> {
    const s = this.session;
    const log = s.deps.log;
    const out = bufferOutput();
    const seen: Fact[] = [];
    const listener = s.onActivity((a) => {
      if (a.kind === 'step') seen.push(...a.facts.filter((f) => f.type === 'decision' || f.type === 'compacted' || f.type === 'sequence_ended'));
    });
    const turn = new Turn(s, model, out, cancel.token, undefined);
    try {
      log.info(`[${s.threadId}] idle: nobody used the thread since the turn ended; running the golden path in the background`);
      const compacted = await turn.idleTimeout(timerId);
      if (compacted)
        await s.syncTokens(model, cancel.token).then(
          () => s.flush(),
          () => undefined,
        );
      this.receipt = receiptOf(seen);
    } catch (err) {
      // The sequence must not stay open with nobody driving it: the arbiter hears a cancel (the thread is
      // untouched or fully swapped, and the cooldown keeps it from starting again at once).
      log.warn(`[${s.threadId}] idle compaction stopped: ${err instanceof Error ? err.message : String(err)}`);
      // (Not Session.cancel: that would also stop the request of a person who came back and waits.)
      await s
        .executor()
        .feed({ type: 'cancel', at: s.clock.now() })
        .catch(() => undefined);
      if (seen.some((f) => f.type === 'decision'))
        this.receipt = note('rawr tried to compact this thread while you were away, but stopped; the thread is unchanged.');
    } finally {
      listener.dispose();
      log.info(`[${s.threadId}] idle compaction transcript:\n${out.text()}`);
    }
  }

  /**
   * The person is back (a request of this thread starts): it waits for a background compaction to end —
   * the chat's Stop cancels it instead — then shows what happened while they were away, once.
   */
  async returning(stream: ChatOutput, token: vscode.CancellationToken): Promise<void> {
    this.disarm();
    const job = this.job;
    if (job) {
      stream.progress('rawr is compacting this thread while you were away; your message follows…');
      const stop = token.onCancellationRequested(() => job.cancel.cancel());
      try {
        await job.done;
      } finally {
        stop.dispose();
      }
    }
    if (this.receipt) {
      stream.markdown(this.receipt);
      this.receipt = undefined;
    }
  }

  dispose(): void {
    this.disarm();
    this.job?.cancel.cancel();
  }
}

/** "Compacted while you were away at commit 3f2a1c9 — 112k → 9k tokens", from the background steps. */
function receiptOf(facts: readonly Fact[]): string | undefined {
  const decision = facts.find((f): f is Extract<Fact, { type: 'decision' }> => f.type === 'decision' && f.decision.code === 'idle');
  const compacted = facts.find((f): f is Extract<Fact, { type: 'compacted' }> => f.type === 'compacted');
  const ended = facts.find((f): f is Extract<Fact, { type: 'sequence_ended' }> => f.type === 'sequence_ended');
  if (!decision) return undefined;
  if (!compacted) return note(`rawr tried to compact this thread while you were away (${ended?.outcome ?? 'stopped'}); the thread is unchanged.`);
  const d = decision.decision;
  const at = d.boundaries.find((b) => d.matched.includes(b.id));
  const where = at ? ` at ${closeWords(at)}` : '';
  return `\n\n**Compacted while you were away${where} — ${kTokens(compacted.tokensBefore)} → ${kTokens(compacted.tokensAfter)} tokens.** _${d.reason}._\n\n`;
}
