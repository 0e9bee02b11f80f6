// The planted faults of the mutation check (scripts/mutants.mjs): each one exact text in a source file,
// what replaces it, and the test files that must notice. Each is a mistake someone could really make;
// `find` must occur exactly once in `file`. Tests are named by their path under test/.

/**
 * `also`: a second edit in the same file, for a fault that takes two changes.
 * @type {Array<{ id: string; file: string; what: string; find: string; replace: string; tests: string[]; also?: { find: string; replace: string } }>}
 */
export const FAULTS = [
  // Idle compaction in the chat participant (issue 35: these three once passed the whole unit tier).
  {
    id: 'idle-early',
    file: 'src/host/participant/idleCompactor.ts',
    what: 'the idle watch fires 2 s before the setting has passed',
    find: 'this.session.clock.setTimer(() => this.fire(timerId), ms)',
    replace: 'this.session.clock.setTimer(() => this.fire(timerId), ms - 2000)',
    tests: ['unit/participant.idle.test.ts'],
  },
  {
    id: 'idle-disarm-noop',
    file: 'src/host/participant/idleCompactor.ts',
    what: 'disarm() does nothing (a message, a cancel or a closed window leaves the watch armed)',
    find: '    this.armed?.timer.dispose();\n    this.armed = undefined;\n',
    replace: '',
    tests: ['unit/participant.idle.test.ts'],
  },
  {
    // The timerId check alone cannot be caught: a disarmed watch's timer is disposed, and a Clock never
    // calls a disposed timer (systemClock is clearTimeout), so no stale timer ever reaches fire(). The
    // check is the second of two guards; with the first one (dispose) gone too, a stale timer fires.
    id: 'idle-stale-timer',
    file: 'src/host/participant/idleCompactor.ts',
    what: 'the timerId check removed and a disarmed watch keeps its timer (a replaced watch fires)',
    find: '    if (!armed || armed.timerId !== timerId) return;',
    replace: '    if (!armed) return;',
    tests: ['unit/participant.idle.test.ts'],
    also: { find: '    this.armed?.timer.dispose();\n', replace: '' },
  },
  // The arbiter.
  {
    id: 'tier-asap-as-ready',
    file: 'src/core/arbiter/tiers.ts',
    what: 'the asap tier is reported as ready',
    find: "if (percent < s.asap_percent_remaining_lt) return 'asap';",
    replace: "if (percent < s.asap_percent_remaining_lt) return 'ready';",
    tests: ['unit/engine.decide.test.ts', 'unit/engine.step.test.ts'],
  },
  {
    id: 'cooldown-or',
    file: 'src/core/arbiter/decide.ts',
    what: 'the cooldown lasts until both its turns and its seconds have passed (|| for &&)',
    find: 'return c.turnsSince < s.cooldown_turns && c.secondsSince < s.cooldown_seconds;',
    replace: 'return c.turnsSince < s.cooldown_turns || c.secondsSince < s.cooldown_seconds;',
    tests: ['unit/engine.decide.test.ts', 'unit/engine.step.test.ts'],
  },
  // Found by Stryker (CONTRIBUTING.md "Mutation testing with Stryker"): each once passed every test.
  {
    id: 'forecast-skips-guards',
    file: 'src/core/arbiter/decide.ts',
    what: "a forecast compaction ignores the tier rule's guards (an open tool call, the cooldown, queued input)",
    find: '  if (guarded) return { ...guarded, forecast: { ...info, drove: false } };',
    replace: '',
    tests: ['unit/engine.decide.test.ts'],
  },
  {
    id: 'forecast-touches-emergency',
    file: 'src/core/arbiter/decide.ts',
    what: 'the forecast may hold back an emergency compaction',
    find: "if (!f || !t || i.percentRemaining === null || d.code === 'emergency') return",
    replace: 'if (!f || !t || i.percentRemaining === null) return',
    tests: ['unit/engine.decide.test.ts'],
  },
  // The engine's step.
  {
    id: 'step-idle-not-cancelled',
    file: 'src/core/engine/step.ts',
    what: 'activity in the thread clears the idle watch without cancelling its timer',
    find: "  fx.push({ type: 'cancel_timer', timerId: s.idle.timerId });\n  return withState(s, { idle: null });",
    replace: '  return withState(s, { idle: null });',
    tests: ['unit/engine.idle.test.ts'],
  },
  {
    id: 'step-idle-any-point',
    file: 'src/core/engine/step.ts',
    what: 'an idle watch is armed at any evaluation point, not only at a turn end',
    find: "if (point !== 'turn_complete' || !(minutes > 0)",
    replace: 'if (!(minutes > 0)',
    tests: ['unit/engine.idle.test.ts'],
  },
  {
    id: 'step-packet-deadline-ms',
    file: 'src/core/engine/step.ts',
    what: 'the packet deadline is set in seconds where the timer takes milliseconds (the watcher packet after 0.18 s)',
    find: "ms: st.settings.packet_deadline_seconds * 1000 });\n    return { ...st, seq: { ...base, phase: 'awaiting_packet'",
    replace: "ms: st.settings.packet_deadline_seconds });\n    return { ...st, seq: { ...base, phase: 'awaiting_packet'",
    tests: ['unit/engine.step.test.ts'],
  },
  {
    id: 'step-stale-packet-timer',
    file: 'src/core/engine/step.ts',
    what: "any packet timer ends the current packet turn, not only this sequence's",
    find: "seq.phase === 'awaiting_scratch') && timerId === `packet:${seq.seqId}`)",
    replace: "seq.phase === 'awaiting_scratch') && timerId.startsWith('packet:'))",
    tests: ['unit/engine.step.test.ts'],
  },
  {
    id: 'step-stall-on-any-gain',
    file: 'src/core/engine/step.ts',
    what: 'every compaction that leaves the context under a threshold counts as freeing too little (a stall)',
    find: 'pAfter - pBefore < s.settings.min_gain_percent && tierOf',
    replace: 'tierOf',
    tests: ['unit/engine.step.test.ts'],
  },
  // The sequence.
  {
    id: 'packet-sections-unchecked',
    file: 'src/core/sequence/packet.ts',
    what: "an agent's packet missing required sections is accepted",
    find: '.filter((s) => !headings.some((h) => s.pattern.test(h)))',
    replace: '.filter(() => false)',
    tests: ['unit/engine.step.test.ts', 'unit/handoff.test.ts'],
  },
  // Found by Stryker in the sequence and steer scopes (CONTRIBUTING.md "Mutation testing with Stryker").
  {
    id: 'edited-not-moved',
    file: 'src/core/sequence/trailFacts.ts',
    what: 'a file edited again keeps its first place in the files edited (the bug Stryker found: the packet and the repair then drop it first)',
    find: 'if (items.every((f, k) => list[list.length - items.length + k] === f)) return list as string[];',
    replace: 'if (items.every((f) => list.includes(f))) return list as string[];',
    tests: ['unit/sequence.trailFacts.test.ts'],
  },
  {
    id: 'tail-half-answered-call',
    file: 'src/core/sequence/recentTail.ts',
    what: 'the kept tail may hold a tool call whose results are not all in (a thread the model API refuses)',
    find: 'return first.toolCalls.every((c) => answered.has(c.id));',
    replace: 'return first.toolCalls.some((c) => answered.has(c.id));',
    tests: ['unit/sequence.recentTail.test.ts', 'unit/handoff.test.ts'],
  },
  {
    id: 'steer-unsteered-refuses',
    file: 'src/core/hooks/claude/steer.ts',
    what: 'the PreCompact hook refuses in a project rawr does not steer (no steer.json, --no-steer)',
    find: "  if (!i.config?.steer) return { why: 'not_steering', text: 'allowed: rawr does not steer this project (hooks claude install --no-steer)' };\n",
    replace: '',
    tests: ['unit/hooks.steerVerdict.test.ts'],
  },
  {
    id: 'steer-no-blocking-guard',
    file: 'src/core/hooks/claude/steer.ts',
    what: "the PreCompact hook refuses up to the full window, past Claude Code's blocking level (the refusal ends the turn)",
    find: 'if (used >= window * BLOCKING_GUARD) return',
    replace: 'if (used >= window) return',
    tests: ['unit/hooks.steerVerdict.test.ts'],
  },
  {
    id: 'steer-heads-up-when-golden-off',
    file: 'src/core/hooks/claude/steer.ts',
    what: 'the PreCompact hook asks the model for a packet at a boundary even when the golden path is off',
    find: '    if (i.golden?.enabled)\n',
    replace: '    if (i.golden)\n',
    tests: ['unit/hooks.steerVerdict.test.ts'],
  },
  // Signals.
  {
    id: 'githead-short-prefix',
    file: 'src/core/signals/gitHead.ts',
    what: 'any hash prefix counts as the same commit (no 7-character minimum)',
    find: 'return Math.min(x.length, y.length) >= 7 && (x.startsWith(y) || y.startsWith(x));',
    replace: 'return x.startsWith(y) || y.startsWith(x);',
    tests: ['unit/signals.gitHead.test.ts'],
  },
  {
    id: 'shell-amend-is-commit',
    file: 'src/core/signals/shell.ts',
    what: 'a `git commit --amend` counts as a new phase boundary',
    find: '        if (inv.amend) break; // an amend rewrites the boundary commit; not a new phase\n',
    replace: '',
    tests: ['unit/signals.shell.test.ts'],
  },
  // Documented values, pinned in the tests as the docs' numbers (not imported from the code).
  {
    id: 'steer-wait-halved',
    file: 'src/core/hooks/claude/transcriptCaughtUp.ts',
    what: 'the steering hook waits 300 ms for a late tool result, not the documented 600 ms',
    find: 'export const MAX_WAIT_MS = 600;',
    replace: 'export const MAX_WAIT_MS = 300;',
    tests: ['unit/hooks.steer.test.ts'],
  },
  {
    id: 'id-memory-halved',
    file: 'src/core/replay/bounded.ts',
    what: 'the adapter remembers 5,000 waiting shell calls, not the documented 10,000',
    find: 'export const ID_MEMORY = 10_000;',
    replace: 'export const ID_MEMORY = 5_000;',
    tests: ['unit/agent.adapter.test.ts'],
  },
  {
    id: 'problem-detail-halved',
    file: 'src/core/replay/stream.ts',
    what: 'the first 10 problems are kept with their lines, not the documented 20',
    find: 'export const MAX_PROBLEM_DETAIL = 20;',
    replace: 'export const MAX_PROBLEM_DETAIL = 10;',
    tests: ['unit/replay.stream.test.ts'],
  },
  // Hostile text.
  {
    id: 'quote-compaction-marker',
    file: 'src/core/text/quote.ts',
    what: "model-written text can forge Claude Code's compaction marker",
    find: ".replace(COMPACTION_MARKER, '(quoted) context-compaction-detected')",
    replace: '',
    tests: ['unit/hardening.quote.test.ts'],
  },
  // The host's tools and file reads.
  {
    id: 'workspace-sibling-prefix',
    file: 'src/host/tools/workspacePath.ts',
    what: 'a sibling folder sharing the workspace name as a prefix (/ws-evil) counts as inside',
    find: 'p.startsWith(root.endsWith(path.sep) ? root : root + path.sep)',
    replace: 'p.startsWith(root)',
    tests: ['unit/tools.confinement.test.ts'],
  },
  {
    id: 'tools-allowed-unanchored',
    file: 'src/host/settingsMerge.ts',
    what: 'a rawr.tools.allowed glob matches anywhere in a name ("rawr_*" allows "evil_rawr_x")',
    find: '? new RegExp(\n          `^${pattern',
    replace: '? new RegExp(\n          `${pattern',
    tests: ['unit/settings.merge.test.ts'],
  },
  {
    id: 'edit-writes-utf8',
    file: 'src/host/tools/fileTools.ts',
    what: 'an edit writes the file back as UTF-8 whatever its encoding (a UTF-16 file re-encoded)',
    find: '  const bytes = encodeText(text, encoding);',
    replace: "  const bytes = encodeText(text, encoding === 'utf8bom' ? 'utf8bom' : 'utf8');",
    tests: ['property/tools.property.test.ts'],
  },
  {
    id: 'safe-read-cap',
    file: 'src/core/io/safeRead.ts',
    what: 'files up to twice the size cap are read whole',
    find: 'if (st.size <= o.maxBytes) return',
    replace: 'if (st.size <= o.maxBytes * 2) return',
    tests: ['unit/hardening.inputs.test.ts', 'unit/hardening.log.test.ts'],
  },
];
