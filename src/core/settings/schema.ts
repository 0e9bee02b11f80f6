/**
 * Every knob of the arbiter, with its zod schema and default. The defaults' single source of truth is the
 * YAML frontmatter of prompts/rawr-auto-compact.md (docs/ARCHITECTURE.md#settings-and-prompt-files); DEFAULT_SETTINGS mirrors that file and a
 * unit test keeps the two equal, so the core still has safe values if the file itself is unreadable.
 */
import * as z from 'zod';
import { BOUNDARY_KINDS } from '../signals/types';

export const MODES = ['off', 'tag', 'suggest', 'auto'] as const;
export type Mode = (typeof MODES)[number];

export const TIERS = ['early', 'ready', 'asap', 'emergency'] as const;
export type Tier = (typeof TIERS)[number];
/** Tiers that need a boundary; emergency needs none. */
export type GatedTier = Exclude<Tier, 'emergency'>;

export const MID_TURN_POLICIES = ['golden_path', 'emergency_only', 'off'] as const;
export type MidTurnPolicy = (typeof MID_TURN_POLICIES)[number];

const percent = z.number().min(0).max(100);
const boundaryList = z.array(z.enum(BOUNDARY_KINDS));
const markerList = z.array(z.string().min(1).max(200)).max(200);

export const DEFAULT_SETTINGS = {
  mode: 'auto' as Mode,
  early_percent_remaining_lt: 45,
  ready_percent_remaining_lt: 35,
  asap_percent_remaining_lt: 25,
  emergency_percent_remaining_lt: 12,
  auto_requires_any_boundary: {
    early: ['commit', 'plan_checkpoint', 'pr_checkpoint'],
    ready: ['commit', 'plan_checkpoint', 'pr_checkpoint', 'agent_done', 'concluding', 'topic_shift'],
    asap: ['commit', 'plan_checkpoint', 'pr_checkpoint', 'agent_done', 'concluding', 'topic_shift', 'turn_complete'],
  } as Record<GatedTier, Array<(typeof BOUNDARY_KINDS)[number]>>,
  packet_author: 'agent' as 'agent' | 'watcher',
  scratch_write_enabled: true,
  cooldown_turns: 2,
  cooldown_seconds: 300,
  agent_done_markers: [
    'all done',
    'task complete',
    'task is complete',
    'work is complete',
    'implementation is complete',
    'everything is done',
    'finished implementing',
    "i've completed",
    'i have completed',
    'all tests pass',
  ],
  concluding_markers: [
    'in summary',
    'to summarize',
    'summary of changes',
    'next steps',
    'ready for review',
    'wrapping up',
    "here's what i did",
    'here is what i did',
  ],
  topic_shift_markers: ['moving on to', 'switching to', 'next phase', 'now for phase', 'starting phase', 'on to the next'],
  judgment_enabled: true,
  judgment_timeout_seconds: 20,
  mid_turn_policy: 'golden_path' as MidTurnPolicy,
  packet_deadline_seconds: 180,
  packet_min_chars: 300,
  activity_tail_tool_calls: 6,
  keep_recent_tokens: 4000,
  agent_packet_replaces_summary: true,
  min_gain_percent: 15,
  forecast_enabled: true,
  forecast_margin_percent: 5,
  forecast_recent_phases: 3,
  forecast_first_phase_percent: 30,
  idle_compact_minutes: 0,
};

export const SettingsSchema = z
  .object({
    mode: z.enum(MODES),
    early_percent_remaining_lt: percent,
    ready_percent_remaining_lt: percent,
    asap_percent_remaining_lt: percent,
    emergency_percent_remaining_lt: percent,
    auto_requires_any_boundary: z.object({ early: boundaryList, ready: boundaryList, asap: boundaryList }).strict(),
    packet_author: z.enum(['agent', 'watcher']),
    scratch_write_enabled: z.boolean(),
    cooldown_turns: z.number().int().min(0).max(1000),
    cooldown_seconds: z.number().min(0).max(86_400),
    agent_done_markers: markerList,
    concluding_markers: markerList,
    topic_shift_markers: markerList,
    judgment_enabled: z.boolean(),
    judgment_timeout_seconds: z.number().min(1).max(600),
    mid_turn_policy: z.enum(MID_TURN_POLICIES),
    packet_deadline_seconds: z.number().min(5).max(3600),
    packet_min_chars: z.number().int().min(0).max(100_000),
    activity_tail_tool_calls: z.number().int().min(0).max(100),
    keep_recent_tokens: z.number().int().min(0).max(1_000_000),
    agent_packet_replaces_summary: z.boolean(),
    min_gain_percent: percent,
    forecast_enabled: z.boolean(),
    forecast_margin_percent: z.number().min(0).max(200),
    forecast_recent_phases: z.number().int().min(1).max(20),
    forecast_first_phase_percent: percent,
    idle_compact_minutes: z.number().min(0).max(1440),
  })
  .strict();

export type Settings = z.infer<typeof SettingsSchema>;
export type SettingKey = keyof Settings;

/** One-line documentation per knob: used for the Settings UI descriptions, hovers and the settings reference (docs/settings.md). */
export const SETTING_DOCS: Record<SettingKey, string> = {
  mode: 'What rawr does when the context runs low at the end of a phase (a commit, a finished plan step). auto: compacts it — a heads-up to the agent, the agent writes a continuation packet (its notes for after), the compaction, then a handoff that gives the packet back. suggest: offers a "Compact now" button instead. tag: only notes in the chat where it would compact. off: nothing.',
  early_percent_remaining_lt: 'Early tier starts when the percent of context remaining drops below this.',
  ready_percent_remaining_lt: 'Ready tier starts below this percent remaining.',
  asap_percent_remaining_lt: 'ASAP tier starts below this percent remaining.',
  emergency_percent_remaining_lt: 'Emergency tier: compact at the next safe point even without a boundary.',
  auto_requires_any_boundary: 'Per tier, the boundary kinds of which at least one must be present to compact.',
  packet_author:
    'Who writes the continuation packet (the notes the agent gets back after a compaction). agent: the agent writes it, one model call. watcher: rawr assembles it from what it recorded (commits, files, plan, last commands), no model call.',
  scratch_write_enabled:
    'Ask the agent to save its working notes to .scratch/agent-<name>.scratch.md: in the packet turn (one model call for both), or in a turn of its own when rawr writes the packet.',
  cooldown_turns: 'No new compaction until this many user turns completed since the last one (or the cooldown seconds passed), unless emergency.',
  cooldown_seconds: 'No new compaction until this many seconds passed since the last one (or the cooldown turns completed), unless emergency.',
  agent_done_markers: "Phrases in the agent's final message that mark a finished task (counted only with work activity in the turn).",
  concluding_markers: 'Phrases that mark the agent concluding a phase (counted only with work activity in the turn).',
  topic_shift_markers: 'Phrases that mark a shift to a new topic or phase (counted only with work activity in the turn).',
  judgment_enabled: 'Ask a short LM judgment (strict JSON) before compacting in the early, ready and asap tiers. Emergency is never vetoed.',
  judgment_timeout_seconds: 'A judgment that has not answered by then is replaced by the deterministic fallback.',
  mid_turn_policy: 'At tool-loop boundaries inside a long turn: golden_path runs the full sequence, emergency_only only in the emergency tier, off never.',
  packet_deadline_seconds:
    'If the agent has not produced its packet this long after the heads-up (scratch notes included), rawr assembles one (the watcher packet).',
  packet_min_chars: 'An agent packet shorter than this is not accepted (the watcher packet is used instead).',
  activity_tail_tool_calls: 'How many of the last tool calls are summarised (input, head and tail of the output) at the end of a watcher-authored packet.',
  keep_recent_tokens:
    'After a compaction, keep this many tokens of the most recent messages verbatim (person messages, agent messages, tool calls with their results, never split), after the summary and packet. At most 10% of the window and a quarter of the context before the compaction; 0 keeps none.',
  agent_packet_replaces_summary:
    "When the agent's own packet passes validation, use it (with the facts rawr recorded appended) instead of a separate summary call: the compaction then costs one model call over the thread, like a tool's own summary. Off: a summary call follows the packet.",
  min_gain_percent: 'A compaction must raise the percent remaining by at least this much; otherwise rawr says so and does not re-fire.',
  forecast_enabled:
    "Forecast the tokens the next phase will add (from this thread's completed phases): at a commit, plan step or PR step, compact when the room left before the emergency line is smaller than the forecast (even above the early threshold), and wait when it fits. Emergency is never affected.",
  forecast_margin_percent:
    'Safety margin on the phase forecast: compact when the room before the emergency line is below the forecast plus this percent of it.',
  forecast_recent_phases:
    "How many of the thread's most recent completed phases the forecast looks at: the largest of them is the phase forecast shown, their median the typical phase after the next, and until the thread has four completed phases that fit a fresh context they are the scenarios of what the next phase adds. From then on those scenarios come from the thread's whole phase history (its last 20 phases): their smoothed level times each error by which that level missed a past phase.",
  forecast_first_phase_percent:
    'Before the thread completed a phase and without earlier threads in the workspace log, the next phase is assumed to add this percent of the context window.',
  idle_compact_minutes:
    "Compact in the background while you are away: when a turn ended at a phase boundary with the context already low and nobody writes for this many minutes, rawr runs the compaction then. Benefit: your next message starts on a small context instead of sending the whole context again after the provider's prompt cache (about 5 minutes) has lapsed. Cost: one model call you did not start, reading the whole context once. 0 (the default) turns it off, so rawr makes no model call while you are away unless you ask for it; 5 matches the common prompt-cache lifetime.",
};
