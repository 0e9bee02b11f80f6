/**
 * /status and /undo: what they say in the chat. Neither runs the agent; both ask the core (the engine's
 * state and the thread's compactions) rather than anything the window remembers.
 */
import type * as vscode from 'vscode';
import type { Session } from './session';

export interface SlashContext {
  session: Session;
  model: vscode.LanguageModelChat;
  token: vscode.CancellationToken;
  /** The tools the agent's next request would carry (they count toward the context). */
  tools: readonly vscode.LanguageModelChatTool[];
  out: Pick<vscode.ChatResponseStream, 'markdown'>;
}

/** Renders /status. */
export async function showStatus({ session: s, model, token, tools, out }: SlashContext): Promise<void> {
  const view = await s.syncTokens(model, token, tools);
  await s.flush();
  const snap = await s.deps.core.snapshot(s.threadId);
  const last = snap.state.lastDecision;
  const lines = [
    `**rawr status** — thread \`${s.threadId}\`, model ${model.name}`,
    '',
    `- Context: ${view.usedTokens ?? '?'} / ${view.window ?? '?'} tokens, **${view.percentRemaining === null ? '?' : view.percentRemaining.toFixed(1)}% remaining**, tier **${view.tier ?? 'none'}**`,
    `- Counted: the thread ${(view.usedTokens ?? 0) - (view.toolTokens ?? 0)} tokens + ${view.toolCount ?? 0} tool definitions ${view.toolTokens ?? 0} tokens, with ${s.deps.tokens.describe(model)}`,
    `- Mode: ${snap.state.settings.mode}; sequence: ${snap.state.seq.phase}`,
    `- Boundaries pending: ${snap.state.pending.map((b) => `${b.kind} ${b.detail}`).join('; ') || 'none'}`,
    `- Boundaries at the last decision: ${last?.boundaries.map((b) => `${b.kind} (${b.source}) ${b.detail}`).join('; ') || 'none'}`,
    `- Git/terminal boundaries seen recently: ${
      s.deps.bus.recent
        .slice(-5)
        .map((r) => `${r.boundary.kind} (${r.source}) ${r.boundary.detail}`)
        .join('; ') || 'none'
    }`,
    `- Last decision: ${last ? `${last.action} — ${last.reason}` : 'none yet'}`,
    `- Compactions: ${snap.compactions.length}${snap.compactions.length ? ` (last ${snap.compactions.at(-1)!.tokensBefore} → ${snap.compactions.at(-1)!.tokensAfter} tokens; /undo restores it)` : ''}`,
  ];
  out.markdown(lines.join('\n'));
}

/** /undo: the thread as it was before the last compaction, counted again (status bar and arbiter). */
export async function undoLastCompaction({ session, model, token, tools, out }: SlashContext): Promise<void> {
  const last = (await session.deps.core.snapshot(session.threadId)).compactions.at(-1);
  const seq = await session.undo();
  if (!seq || !last) {
    out.markdown('Nothing to undo: this thread has not been compacted.');
    return;
  }
  const view = await session.syncTokens(model, token, tools);
  const left = view.percentRemaining === null ? '' : `, ${view.percentRemaining.toFixed(1)}% of the context left`;
  out.markdown(
    `Undid the last compaction (${kTokens(last.tokensBefore)} → ${kTokens(last.tokensAfter)} tokens): the thread is back as it was before it — ${session.messages.length} messages${left}.`,
  );
}

const kTokens = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
