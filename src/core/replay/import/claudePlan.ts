/**
 * The agent's plan in a Claude Code transcript, across both eras of its planning tools:
 * - up to 2.0.x `TodoWrite`: every call carries the whole list (`{todos: [{content, status}]}`);
 * - since 2.1 the Task tools: `TaskCreate {subject, description, activeForm?}` adds one task (its id is
 *   only known from the result: `toolUseResult.task.id`, content "Task #N created successfully: …"),
 *   `TaskUpdate {taskId, status?, subject?}` edits one (status `deleted` removes it), `TaskList` shows
 *   them all. The list itself lives outside the transcript (`~/.claude/tasks/<session>/`), so it is
 *   rebuilt here from the calls and their results.
 *
 * One tracker per transcript. A Task-era change is applied when its result says it happened (an error
 * result changes nothing), so `onToolResult` returns the new whole list; TodoWrite's list is returned at
 * the call, as before. Both give the same shape, `PlanStep[]`, which the replay feeds to the engine's
 * plan signal and the hooks' snapshot keeps as the plan (docs/ARCHITECTURE.md, "Boundaries").
 * Pure: no I/O.
 */
import * as z from 'zod';
import type { StepStatus } from './schemas';
import { TodoWriteInput, normalizeStatus } from './schemas';
import { ID_MEMORY, trimOldest } from '../bounded';

export interface PlanStep {
  text: string;
  status: StepStatus;
}

/** Result of feeding one tool call or result: the new whole plan, a problem to report, or nothing. */
export type PlanChange = { steps: PlanStep[] } | { problem: string; error: z.ZodError } | null;

/** The Task tools that change or show the list (TaskGet shows one task; TaskStop stops a background task). */
export const TASK_TOOLS = ['TaskCreate', 'TaskUpdate', 'TaskList'] as const;

const TaskId = z.union([z.string().min(1), z.number().int()]).transform(String);
const TaskCreateInput = z.object({ subject: z.string() });
const TaskCreateResult = z.object({ task: z.object({ id: TaskId, subject: z.string().optional() }) });
const TaskUpdateInput = z.object({ taskId: TaskId, status: z.string().optional(), subject: z.string().optional() });
const TaskUpdateResult = z.object({ success: z.boolean().optional(), statusChange: z.object({ to: z.string() }).optional() });
/**
 * TaskList: not called in the 2.1.332 samples; the shapes accepted here are the task file's fields
 * (`{id, subject, status}`), either as `toolUseResult.tasks` or as text lines "#1 [completed] Subject".
 */
const TaskListResult = z.object({ tasks: z.array(z.object({ id: TaskId, subject: z.string(), status: z.string() })) });
const TASK_LINE = /^\s*#(\d+)\.?\s+\[([a-z_ -]+)\]\s+(.+?)\s*$/i;
const CREATED = /^Task #(\d+) created/;

export interface Pending {
  name: (typeof TASK_TOOLS)[number];
  input: unknown;
}

/** A tracker as plain JSON (ClaudePlanTracker.save / restore). */
export interface SavedPlanTracker {
  tasks: Array<[string, PlanStep]>;
  pending: Array<[string, Pending]>;
}

export class ClaudePlanTracker {
  /** Task-era list by id, in creation order (Map keeps insertion order). */
  private readonly tasks = new Map<string, PlanStep>();
  /** Task tool calls waiting for their result, by tool_use id. */
  private readonly pending = new Map<string, Pending>();

  save(): SavedPlanTracker {
    return { tasks: [...this.tasks], pending: [...this.pending] };
  }

  static restore(saved: SavedPlanTracker): ClaudePlanTracker {
    const t = new ClaudePlanTracker();
    for (const [id, step] of saved.tasks) t.tasks.set(id, step);
    for (const [id, call] of saved.pending) t.pending.set(id, call);
    return t;
  }

  /** A tool call. TodoWrite: the new list now; Task tools: remembered until their result. */
  onToolUse(id: string, name: string, input: unknown): PlanChange {
    if (name === 'TodoWrite') {
      const todos = TodoWriteInput.safeParse(input);
      if (!todos.success) return { problem: 'TodoWrite input', error: todos.error };
      return { steps: todos.data.todos.map((s) => ({ text: s.content, status: normalizeStatus(s.status) })) };
    }
    if ((TASK_TOOLS as readonly string[]).includes(name)) {
      this.pending.set(id, { name: name as Pending['name'], input });
      trimOldest(this.pending, ID_MEMORY); // calls that never got a result are forgotten, oldest first
    }
    return null;
  }

  /**
   * A tool result. For a Task tool call that succeeded: the whole list after it. `toolUseResult` is the
   * record's structured result (only when this block is the record's only result), `output` its text.
   */
  onToolResult(id: string, output: string, isError: boolean, toolUseResult: unknown): PlanChange {
    const call = this.pending.get(id);
    if (!call) return null;
    this.pending.delete(id);
    if (isError) return null; // the tool refused: the list did not change
    switch (call.name) {
      case 'TaskCreate': {
        const input = TaskCreateInput.safeParse(call.input);
        if (!input.success) return { problem: 'TaskCreate input', error: input.error };
        const result = TaskCreateResult.safeParse(toolUseResult);
        const taskId = result.success ? result.data.task.id : (CREATED.exec(output)?.[1] ?? String(this.tasks.size + 1));
        this.tasks.set(taskId, { text: input.data.subject, status: 'pending' });
        return this.steps();
      }
      case 'TaskUpdate': {
        const input = TaskUpdateInput.safeParse(call.input);
        if (!input.success) return { problem: 'TaskUpdate input', error: input.error };
        const result = TaskUpdateResult.safeParse(toolUseResult);
        if (result.success && result.data.success === false) return null;
        const { taskId, subject } = input.data;
        const status = result.success && result.data.statusChange ? result.data.statusChange.to : input.data.status;
        if (status !== undefined && status.toLowerCase() === 'deleted') {
          this.tasks.delete(taskId);
          return this.steps();
        }
        // A task created before this transcript (tasks outlive a session): known by its id only.
        const task = this.tasks.get(taskId) ?? { text: `Task #${taskId}`, status: 'pending' as const };
        this.tasks.set(taskId, {
          text: subject ?? task.text,
          status: status !== undefined ? normalizeStatus(status) : task.status,
        });
        return this.steps();
      }
      case 'TaskList': {
        const result = TaskListResult.safeParse(toolUseResult);
        const listed = result.success
          ? result.data.tasks.map((t) => ({ id: t.id, subject: t.subject, status: t.status }))
          : output.split('\n').flatMap((l) => {
              const m = TASK_LINE.exec(l);
              return m ? [{ id: m[1]!, subject: m[3]!, status: m[2]! }] : [];
            });
        if (listed.length === 0) return null; // an unknown shape says nothing, and "no tasks" is a transient view
        this.tasks.clear();
        for (const t of listed) this.tasks.set(t.id, { text: t.subject, status: normalizeStatus(t.status) });
        return this.steps();
      }
      default: {
        const _: never = call.name;
        return _;
      }
    }
  }

  private steps(): { steps: PlanStep[] } {
    return { steps: [...this.tasks.values()].map((s) => ({ ...s })) };
  }
}
