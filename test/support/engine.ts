/** Shared test fixtures for the engine: shipped prompts and settings, a state builder, an event driver. */
import { initialState } from '../../src/core/engine/state';
import { step } from '../../src/core/engine/step';
import type { Command, Decision, Effect, EngineEvent, EngineState, Fact } from '../../src/core/engine/types';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import type { Settings } from '../../src/core/settings/schema';

export const shipped = loadPromptSet([dirReader(shippedPromptsDir())]);

/** A decision as the arbiter logs one: compact at a turn's end, early tier, no boundary named; `d` overrides any field. */
export const decisionOf = (d: Partial<Decision>): Decision => ({
  id: 'd',
  at: 0,
  point: 'turn_complete',
  action: 'compact',
  code: 'compact',
  tier: 'early',
  percentRemaining: 40,
  boundaries: [],
  matched: [],
  reason: '',
  ...d,
});

export function mkState(settings: Partial<Settings> = {}): EngineState {
  return initialState({ threadId: 'thread-test-1', settings: { ...shipped.settings, ...settings }, prompts: shipped.prompts });
}

/**
 * Steps the events; `commands` and `facts` are what the steps said, and `effects` both, each step's
 * facts before its commands (the order the event log keeps them in).
 */
export function run(state: EngineState, events: EngineEvent[]): { state: EngineState; effects: Effect[]; commands: Command[]; facts: Fact[] } {
  let s = state;
  const effects: Effect[] = [];
  const commands: Command[] = [];
  const facts: Fact[] = [];
  for (const ev of events) {
    const r = step(s, ev);
    s = r.state;
    effects.push(...r.facts, ...r.commands);
    commands.push(...r.commands);
    facts.push(...r.facts);
  }
  return { state: s, effects, commands, facts };
}

export const WINDOW = 200_000;
/** Tokens used for a given percent remaining. */
export const usedFor = (percentRemaining: number) => Math.round(WINDOW * (1 - percentRemaining / 100));

export const GOOD_PACKET = `## What just completed
Phase 2 (the importer) is done: src/importer.ts parses both formats; commit a1b2c3d "importer: codex".

## Where we are now
All 42 unit tests pass. The CLI prints a table but --json is not wired yet.

## What's next
1. Wire --json in src/cli.ts. 2. Add the 10 MB benchmark. 3. Update README.

## Decisions, invariants and traps
- Codex arguments are JSON strings: parse them, never eval. Redacted arguments stay raw strings.
`;

export const types = (effects: Effect[]) => effects.map((e) => e.type);

/** A realistic turn: the person asks, the agent commits (`sha`), tokens land at `pct` remaining; `at` gives each event's time. */
export function commitTurn(at: () => number, pct: number, sha = 'a1b2c3d'): EngineEvent[] {
  return [
    { type: 'user_message', at: at(), text: 'Implement phase 2: the codex importer, with tests, then commit.' },
    { type: 'tool_call', at: at(), id: `t-${sha}`, name: 'run_in_terminal', input: { command: 'git commit -am "importer"' } },
    { type: 'tool_result', at: at(), id: `t-${sha}`, output: `[main ${sha}] importer\n 2 files changed`, isError: false, exitCode: 0 },
    { type: 'boundary', at: at(), source: 'terminal', boundary: { kind: 'commit', key: sha, detail: `${sha} importer` } },
    { type: 'assistant_message', at: at(), text: 'Committed the importer. Phase 2 is done; next is the CLI.' },
    { type: 'tokens', at: at(), used: usedFor(pct), window: WINDOW },
  ];
}

/** The effects of one kind, typed. */
export const find = <T extends Effect['type']>(fx: Effect[], t: T) => fx.filter((e): e is Extract<Effect, { type: T }> => e.type === t);
