/**
 * What the effect executor (effectExecutor.ts) works through: small interfaces, each for one thing it
 * needs, so it depends on none of the classes that implement them (the session, the turn). A chat request
 * brings the request ports (model, tools, chat output); the thread ports are always there.
 */
import type * as vscode from 'vscode';
import type { EngineEvent, StepOutput } from '../../core/engine/types';
import type { PlanStep } from '../../core/signals/plan';
import type { ThreadMessage } from '../../core/thread/thread';

/** What the Chat view is given: the part of vscode.ChatResponseStream rawr uses. */
export type ChatOutput = Pick<vscode.ChatResponseStream, 'markdown' | 'progress' | 'button'>;

export interface ModelReply {
  text: string;
  toolCalls: ToolCall[];
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** The chat request's model (agentModel.ts): one call over the thread as it stands. */
export interface ModelPort {
  readonly model: vscode.LanguageModelChat;
  /** The request's cancellation (the chat's Stop, the panel's Cancel). */
  readonly token: vscode.CancellationToken;
  /** One model call over the thread; streamed into the chat when `render`. */
  call(tools: vscode.LanguageModelChatTool[], render: boolean, token: vscode.CancellationToken): Promise<ModelReply>;
}

export interface ToolOutcome {
  output: string;
  isError: boolean;
  /** The plan a rawr_update_plan call recorded: the caller reports it to the engine. */
  plan?: readonly PlanStep[];
}

/**
 * Runs tool calls (agentToolRunner.ts): the call, its line in the chat, its result in the thread. It does
 * not tell the engine: whoever asked for the call reports it (the agent loop does; rawr's own turns do not).
 */
export interface ToolPort {
  /** A call to a tool not in `offered` gets an error result instead of running. */
  run(call: ToolCall, token: vscode.CancellationToken, offered?: readonly string[]): Promise<ToolOutcome>;
}

/** The thread's arbiter: one event in (with whatever waits to be sent), what it said out (Session.step). */
export interface EnginePort {
  step(ev: EngineEvent): Promise<StepOutput>;
}

/**
 * The model-facing thread of this window (Session): read, appended to, swapped by a compaction. An append
 * or a swap is in the thread at once and reaches the core with the next step.
 */
export interface ThreadPort {
  readonly threadId: string;
  readonly agentName: string;
  readonly messages: readonly ThreadMessage[];
  append(message: ThreadMessage): Promise<void>;
  /** Atomic: the core writes archive and replacement first. */
  swap(seqId: string, tokensBefore: number, tokensAfter: number, replacement: ThreadMessage[]): Promise<void>;
}

/** Idle compaction (idleCompactor.ts): holds the arbiter's idle watch (arm_idle) until it ends or is cancelled. */
export interface IdlePort {
  /** `model`: the one of the request whose turn just ended; without one nothing could run the golden path. */
  arm(timerId: string, ms: number, model: vscode.LanguageModelChat | undefined): void;
  cancel(timerId: string): void;
}
