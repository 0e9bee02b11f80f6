/**
 * The agent adapter (docs/ARCHITECTURE.md#the-agent-adapter): the only code that turns what an agent
 * did into engine events. Every source reports its activity here — @rawr's live turn
 * (host/participant/turn.ts), a Claude Code transcript or a Codex rollout or rawr's own log (through the
 * recording importers: `rawr replay`, `rawr handoff`, the panel's live follow, the hooks), and the
 * workspace's git and terminal (a commit seen by git) — so the same activity becomes the same events,
 * whatever its source.
 *
 * What it adds to the activity is the tools' meaning (tools.ts): a shell call's result becomes the
 * tool result and then the boundaries its command produced (a real `git commit` that succeeded, a push).
 * It remembers the command of each recent shell call for its result (bounded: the oldest is forgotten
 * after ID_MEMORY newer ones; replay/bounded.ts). Pure: no I/O.
 */
import type { EngineEvent } from '../engine/types';
import { ID_MEMORY, trimOldest } from '../replay/bounded';
import { analyzeShellCommand } from '../signals/shell';
import type { PlanStep } from '../signals/plan';
import type { BoundarySource, DetectedBoundary } from '../signals/types';
import type { RecordingItem } from '../replay/recording';
import { commandOf, isShellTool } from '../signals/tools';

/** What an agent did, as any source reports it (times in ms since the epoch). */
export type AgentActivity =
  | { type: 'user_message'; at: number; text: string }
  | { type: 'assistant_message'; at: number; text: string }
  | { type: 'tool_call'; at: number; id: string; name: string; input: unknown }
  /** `exitCode` when the source states one (a shell tool's result). */
  | { type: 'tool_result'; at: number; id: string; output: string; isError: boolean; exitCode?: number }
  | { type: 'plan'; at: number; steps: PlanStep[] }
  /** A boundary the workspace saw by itself: a commit or push seen by git, a command run in a terminal. */
  | { type: 'boundary_seen'; at: number; source: BoundarySource; boundary: DetectedBoundary };

export interface Adapted {
  /** The engine events of the activity, in the order they are fed. */
  events: EngineEvent[];
  /** A shell command that could not be analysed (e.g. nested too deeply): its boundaries are not known. */
  problem?: string;
}

export class AgentAdapter {
  /** The command of each recent shell call, by call id, for its result. */
  private readonly shellCalls = new Map<string, string>();

  /** What it remembers, as plain JSON (the Claude Code hook saves a session's replay between calls). */
  save(): Array<[string, string]> {
    return [...this.shellCalls];
  }

  static restore(saved: ReadonlyArray<readonly [string, string]>): AgentAdapter {
    const a = new AgentAdapter();
    for (const [id, command] of saved) a.shellCalls.set(id, command);
    return a;
  }

  /** Shell calls remembered for their results (bounded; the streaming replay's test counts them). */
  get shellCallsHeld(): number {
    return this.shellCalls.size;
  }

  adapt(a: AgentActivity): Adapted {
    switch (a.type) {
      case 'user_message':
      case 'assistant_message':
        return { events: [{ type: a.type, at: a.at, text: a.text }] };
      case 'plan':
        return { events: [{ type: 'plan', at: a.at, steps: a.steps }] };
      case 'boundary_seen':
        return { events: [{ type: 'boundary', at: a.at, source: a.source, boundary: a.boundary }] };
      case 'tool_call': {
        // Only what the result needs: the command of a shell call (a call's input can be a whole file).
        const command = isShellTool(a.name) ? commandOf(a.input) : undefined;
        this.shellCalls.delete(a.id); // a reused id is the newest call
        if (command !== undefined) {
          this.shellCalls.set(a.id, command);
          trimOldest(this.shellCalls, ID_MEMORY);
        }
        return { events: [{ type: 'tool_call', at: a.at, id: a.id, name: a.name, input: a.input }] };
      }
      case 'tool_result': {
        const result: EngineEvent = {
          type: 'tool_result',
          at: a.at,
          id: a.id,
          output: a.output,
          isError: a.isError,
          ...(a.exitCode !== undefined ? { exitCode: a.exitCode } : {}),
        };
        const command = this.shellCalls.get(a.id);
        if (command === undefined) return { events: [result] };
        // A call has one result: what is remembered is the calls still waiting for theirs (a Claude Code
        // hook saves this with the session on every model request; kept, it grew with the transcript).
        this.shellCalls.delete(a.id);
        // Commits and pushes run through a shell tool count like those typed in a terminal.
        const analysed = analyzeShellCommand({ command, exitCode: a.exitCode, output: a.output });
        const events: EngineEvent[] = [
          result,
          ...analysed.boundaries.map((boundary) => ({ type: 'boundary' as const, at: a.at, source: 'tool_result' as const, boundary })),
        ];
        return analysed.problem ? { events, problem: analysed.problem.message } : { events };
      }
      default: {
        const unknown: never = a;
        throw new Error(`unknown agent activity ${JSON.stringify(unknown)}`);
      }
    }
  }
}

/**
 * A recorded item (a Claude Code transcript, a Codex rollout or a rawr log, through its importer) as
 * agent activity; null for what is not activity but the context's size (usage, the recorded tool's own
 * compaction), which the replay models itself (replay/driver.ts).
 */
export function recordedActivity(it: RecordingItem, at: number = it.at): AgentActivity | null {
  switch (it.type) {
    case 'user_prompt':
      return { type: 'user_message', at: at, text: it.text };
    case 'assistant_text':
      return { type: 'assistant_message', at: at, text: it.text };
    case 'tool_call':
      return { type: 'tool_call', at: at, id: it.id, name: it.name, input: it.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        at: at,
        id: it.id,
        output: it.output,
        isError: it.isError,
        ...(it.exitCode !== undefined ? { exitCode: it.exitCode } : {}),
      };
    case 'plan':
      return { type: 'plan', at: at, steps: it.steps };
    case 'usage':
    case 'native_compaction':
      return null;
    default: {
      const unknown: never = it;
      throw new Error(`unknown recording item ${JSON.stringify(unknown)}`);
    }
  }
}
