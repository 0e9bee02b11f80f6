/**
 * `rawr handoff`: what rawr would put into the model-facing thread if it compacted a recorded session at
 * a given line, with no language model — the engine fed with the records before that line (as the host
 * feeds it), the watcher packet, the handoff, and the recent turns kept verbatim. The same functions the
 * extension uses after a compaction (sequence/*), so this shows the real text, not a look-alike.
 */
import { step } from '../engine/step';
import { initialState } from '../engine/state';
import type { EngineEvent, EngineState } from '../engine/types';
import type { Prompts } from '../prompts/promptSet';
import { assembleWatcherPacket } from '../sequence/packet';
import { compactedThread, messageTokens, selectRecentTail, tailBudget } from '../sequence/recentTail';
import { handoffText } from '../sequence/texts';
import type { Settings } from '../settings/schema';
import type { ThreadMessage } from '../thread/thread';
import { AgentAdapter, recordedActivity } from '../agent/adapter';
import type { Recording, RecordingItem } from './recording';

export interface HandoffAt {
  line: number;
  packet: string;
  handoff: string;
  /** The recent turns kept verbatim (without their one-line introduction). */
  tail: ThreadMessage[];
  /** The model-facing thread after the compaction: the replacement, then the handoff. */
  thread: ThreadMessage[];
  tokens: { packet: number; handoff: number; tail: number; total: number };
  /** Items of the recording before the line (what the packet was built from). */
  itemsBefore: number;
}

/** The recording's messages as rawr's thread would hold them: calls on the agent message they came with. */
export function recordingThread(items: readonly RecordingItem[]): ThreadMessage[] {
  const out: ThreadMessage[] = [];
  const names = new Map<string, string>();
  for (const it of items) {
    switch (it.type) {
      case 'user_prompt':
        out.push({ role: 'user', text: it.text });
        break;
      case 'assistant_text':
        out.push({ role: 'assistant', text: it.text });
        break;
      case 'tool_call': {
        names.set(it.id, it.name);
        const last = out.at(-1);
        const call = { id: it.id, name: it.name, input: it.input };
        // Calls of one model response follow its text; a call after a result starts a new response.
        if (last?.role === 'assistant') out[out.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), call] };
        else out.push({ role: 'assistant', text: '', toolCalls: [call] });
        break;
      }
      case 'tool_result':
        out.push({ role: 'tool', toolCallId: it.id, name: names.get(it.id) ?? 'tool', text: it.output, ...(it.isError ? { isError: true } : {}) });
        break;
      // Not messages: the context's size, the recorded tool's compactions, plans (a tool call already holds them).
      case 'usage':
      case 'native_compaction':
      case 'plan':
        break;
      default: {
        const unknown: never = it;
        throw new Error(`unknown recording item ${JSON.stringify(unknown)}`);
      }
    }
  }
  return out;
}

/** The engine state after the recording's records before `line`, fed through the agent adapter as a live session is. */
export function stateBefore(rec: Recording, line: number, settings: Settings, prompts: Prompts): { state: EngineState; items: RecordingItem[] } {
  let state = initialState({ threadId: 'handoff', settings, prompts });
  const feed = (ev: EngineEvent) => (state = step(state, ev).state);
  const adapter = new AgentAdapter();
  const items = rec.items.filter((i) => i.line < line);
  for (const it of items) {
    const at = it.at || 0;
    const activity = recordedActivity(it, at);
    if (activity) for (const ev of adapter.adapt(activity).events) feed(ev);
    else if (it.type === 'usage') feed({ type: 'tokens', at, used: it.contextTokens, window: it.window ?? rec.window ?? 200_000 });
  }
  return { state, items };
}

export function handoffAt(rec: Recording, line: number, settings: Settings, prompts: Prompts): HandoffAt {
  if (!Number.isInteger(line) || line < 1 || line > rec.lines + 1)
    throw new Error(`--line must be between 1 and ${rec.lines + 1} (the file has ${rec.lines} lines), got ${line}`);
  const { state, items } = stateBefore(rec, line, settings, prompts);
  const packet = assembleWatcherPacket(state.trail, state.plan, settings.activity_tail_tool_calls);
  const handoff = handoffText(prompts, packet, undefined, state.plan, state.trail, { origin: 'watcher' });
  const tail = selectRecentTail(recordingThread(items), tailBudget(settings.keep_recent_tokens, state.tokens?.window, state.tokens?.used));
  const replacement = compactedThread(null, packet, tail);
  const thread: ThreadMessage[] = [...replacement, { role: 'user', text: handoff, synthetic: true, kind: 'handoff' }];
  const count = (ms: readonly ThreadMessage[]) => ms.reduce((n, m) => n + messageTokens(m), 0);
  const tokens = {
    packet: count([{ role: 'user', text: packet }]),
    handoff: count([{ role: 'user', text: handoff }]),
    tail: count(replacement),
    total: count(thread),
  };
  return { line, packet, handoff, tail, thread, tokens, itemsBefore: items.length };
}
