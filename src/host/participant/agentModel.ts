/**
 * The chat request's model as the executor and the agent loop use it (a `ModelPort`): one call over the
 * thread as it stands, its text streamed into the chat when asked, its tool calls collected.
 */
import * as vscode from 'vscode';
import { toLmMessages } from './lmMessages';
import type { ChatOutput, ModelPort, ModelReply, ThreadPort } from './ports';

export class AgentModel implements ModelPort {
  constructor(
    readonly model: vscode.LanguageModelChat,
    readonly token: vscode.CancellationToken,
    private readonly thread: Pick<ThreadPort, 'messages'>,
    private readonly out: ChatOutput,
  ) {}

  async call(tools: vscode.LanguageModelChatTool[], render: boolean, token: vscode.CancellationToken): Promise<ModelReply> {
    const response = await this.model.sendRequest(toLmMessages(this.thread.messages), { tools, justification: '@rawr runs the agent loop' }, token);
    const reply: ModelReply = { text: '', toolCalls: [] };
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) {
        reply.text += part.value;
        if (render) this.out.markdown(part.value);
      } else if (part instanceof vscode.LanguageModelToolCallPart) {
        reply.toolCalls.push({ id: part.callId, name: part.name, input: part.input });
      }
    }
    return reply;
  }
}
