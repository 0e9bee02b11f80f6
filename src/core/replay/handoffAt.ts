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
import { compactedThread, messageTokens, selectRecentTail, tailBudget, tailHorizon } from '../sequence/recentTail';
import { handoffText } from '../sequence/texts';
import type { Settings } from '../settings/schema';
import type { ThreadMessage } from '../thread/thread';
import { AgentAdapter, recordedActivity } from '../agent/adapter';
import { ID_MEMORY, trimOldest } from './bounded';
import type { LineSource } from './import/schemas';
import type { Recording, RecordingItem } from './recording';
import { forEachItem, ProblemTally, type RecordingScan } from './stream';

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

/**
 * The recording's messages as rawr's thread would hold them (calls on the agent message they came with),
 * item by item. With a `maxBudget` only the messages a recent tail of at most that many tokens can take
 * are kept (recentTail.ts tailHorizon), so a recording of any length costs what its tail does.
 */
export class RecordingThread {
  private out: ThreadMessage[] = [];
  private readonly names = new Map<string, string>();
  /** Tokens pushed since the thread was last trimmed. */
  private added = 0;

  constructor(private readonly maxBudget = Infinity) {}

  get messages(): readonly ThreadMessage[] {
    return this.out;
  }

  push(it: RecordingItem): void {
    const out = this.out;
    const before = out.length;
    switch (it.type) {
      case 'user_prompt':
        out.push({ role: 'user', text: it.text });
        break;
      case 'assistant_text':
        out.push({ role: 'assistant', text: it.text });
        break;
      case 'tool_call': {
        this.names.set(it.id, it.name);
        trimOldest(this.names, ID_MEMORY);
        const last = out.at(-1);
        const call = { id: it.id, name: it.name, input: it.input };
        // Calls of one model response follow its text; a call after a result starts a new response.
        if (last?.role === 'assistant') {
          out[out.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), call] };
          this.added += messageTokens({ role: 'assistant', text: '', toolCalls: [call] });
        } else out.push({ role: 'assistant', text: '', toolCalls: [call] });
        break;
      }
      case 'tool_result':
        out.push({ role: 'tool', toolCallId: it.id, name: this.names.get(it.id) ?? 'tool', text: it.output, ...(it.isError ? { isError: true } : {}) });
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
    if (out.length > before) this.added += messageTokens(out.at(-1)!);
    // Trimmed once a budget's worth came in since the last time: each message is looked at a bounded
    // number of times, and what is held stays within about twice the budget (plus one unit).
    if (this.maxBudget !== Infinity && this.added > this.maxBudget + 1024) this.trim();
  }

  private trim(): void {
    this.added = 0;
    let from = tailHorizon(this.out, this.maxBudget);
    // Calls that are never answered count for nothing in the horizon: a bound of last resort.
    from = Math.max(from, this.out.length - MAX_HELD_MESSAGES);
    if (from > 0) this.out = this.out.slice(from);
  }
}

/** Messages the thread holds at most whatever the recording (a tail never needs this many). */
const MAX_HELD_MESSAGES = 50_000;

/** The recording's messages as rawr's thread would hold them: calls on the agent message they came with. */
export function recordingThread(items: readonly RecordingItem[]): ThreadMessage[] {
  const t = new RecordingThread();
  for (const it of items) t.push(it);
  return [...t.messages];
}

/**
 * The engine fed with a recording's items as the host feeds a live session, and the recent thread: what
 * a handoff is made from. Bounded: the engine state (its trail is capped), the calls remembered for their
 * results (ID_MEMORY), and the thread (RecordingThread with the largest tail budget, keep_recent_tokens).
 */
export class HandoffFeed {
  state: EngineState;
  /** Items fed so far. */
  items = 0;
  readonly thread: RecordingThread;
  /** The one adapter from agent activity to engine events (docs/ARCHITECTURE.md#the-agent-adapter). */
  private readonly adapter = new AgentAdapter();

  /** `statedWindow`: the window the recording states, for a usage record that names none. */
  constructor(
    private readonly settings: Settings,
    private readonly prompts: Prompts,
    private readonly statedWindow: number | undefined,
    o: { wholeThread?: boolean } = {},
  ) {
    this.state = initialState({ threadId: 'handoff', settings, prompts });
    this.thread = new RecordingThread(o.wholeThread ? Infinity : settings.keep_recent_tokens);
  }

  private feed(ev: EngineEvent): void {
    this.state = step(this.state, ev).state;
  }

  push(it: RecordingItem): void {
    this.items++;
    this.thread.push(it);
    const at = it.at || 0;
    const activity = recordedActivity(it, at);
    if (activity) for (const ev of this.adapter.adapt(activity).events) this.feed(ev);
    else if (it.type === 'usage') this.feed({ type: 'tokens', at, used: it.contextTokens, window: it.window ?? this.statedWindow ?? 200_000 });
  }

  /** The handoff at `line`, from what was fed. */
  handoff(line: number): HandoffAt {
    const { settings, prompts, state } = this;
    const packet = assembleWatcherPacket(state.trail, state.plan, settings.activity_tail_tool_calls);
    const handoff = handoffText(prompts, packet, undefined, state.plan, state.trail, { origin: 'watcher' });
    const tail = selectRecentTail(this.thread.messages, tailBudget(settings.keep_recent_tokens, state.tokens?.window, state.tokens?.used));
    const replacement = compactedThread(null, packet, tail);
    const thread: ThreadMessage[] = [...replacement, { role: 'user', text: handoff, synthetic: true, kind: 'handoff' }];
    const count = (ms: readonly ThreadMessage[]) => ms.reduce((n, m) => n + messageTokens(m), 0);
    const tokens = {
      packet: count([{ role: 'user', text: packet }]),
      handoff: count([{ role: 'user', text: handoff }]),
      tail: count(replacement),
      total: count(thread),
    };
    return { line, packet, handoff, tail, thread, tokens, itemsBefore: this.items };
  }
}

/** The engine state after the recording's records before `line`, fed through the agent adapter as a live session is. */
export function stateBefore(rec: Recording, line: number, settings: Settings, prompts: Prompts): { state: EngineState; items: RecordingItem[] } {
  const feed = new HandoffFeed(settings, prompts, rec.window);
  const items = rec.items.filter((i) => i.line < line);
  for (const it of items) feed.push(it);
  return { state: feed.state, items };
}

function checkLine(line: number, lines: number): void {
  if (!Number.isInteger(line) || line < 1 || line > lines + 1)
    throw new Error(`--line must be between 1 and ${lines + 1} (the file has ${lines} lines), got ${line}`);
}

/** The handoff at `line` of a recording in memory (the benchmarks). */
export function handoffAt(rec: Recording, line: number, settings: Settings, prompts: Prompts): HandoffAt {
  checkLine(line, rec.lines);
  const feed = new HandoffFeed(settings, prompts, rec.window);
  for (const it of rec.items) if (it.line < line) feed.push(it);
  return feed.handoff(line);
}

/**
 * The handoff at `line` of a recording read as it streams (`rawr handoff`, stream.ts): the scan's pass
 * told the format, the lines and the stated window; this pass feeds each item as soon as it is settled
 * and keeps none, so memory does not grow with the file.
 */
export function handoffStreamed(scan: RecordingScan, source: LineSource, line: number, settings: Settings, prompts: Prompts): HandoffAt {
  checkLine(line, scan.lines);
  const feed = new HandoffFeed(settings, prompts, scan.statedWindow);
  forEachItem(scan, source, new ProblemTally(), (it) => {
    if (it.line < line) feed.push(it);
  });
  return feed.handoff(line);
}
