/**
 * Snapshots of every text rawr puts in front of a model, rendered by the real engine from the shipped
 * prompt files over one fixed session: heads-up, judgment (system + context), scratch request, packet
 * request, compaction summary instructions, watcher packet, handoff (agent and watcher packet), and the
 * introduction of the recent turns kept verbatim. A wording change in prompts/*.md or in the code that
 * fills them is then a visible diff in test/snapshots/prompts/.
 *
 * Update after an intended change:  RAWR_UPDATE_SNAPSHOTS=1 npx mocha out/test/unit/prompts.snapshot.test.js
 * (that run fails after writing, so it is never taken for a check, and refuses to run under CI), then
 * read the diff and run again without it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Effect, EngineEvent } from '../../src/core/engine/types';
import { recentIntroText } from '../../src/core/sequence/recentTail';
import { GOOD_PACKET, mkState, run, usedFor, WINDOW } from '../support/engine';
import { updateMode } from '../support/updateMode';

// Compiled to out/test/unit/: the snapshots live in the source tree.
const DIR = path.resolve(__dirname, '../../../test/snapshots/prompts');
const UPDATE = updateMode('RAWR_UPDATE_SNAPSHOTS');

function expectSnapshot(name: string, text: string): void {
  const file = path.join(DIR, `${name}.txt`);
  if (UPDATE.on) {
    UPDATE.write(file, text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  if (!fs.existsSync(file)) throw new Error(`no snapshot ${path.relative(process.cwd(), file)}: run with RAWR_UPDATE_SNAPSHOTS=1 to write it`);
  const want = fs.readFileSync(file, 'utf8');
  assert.equal(text.endsWith('\n') ? text : `${text}\n`, want, `${name} changed: review the diff, then RAWR_UPDATE_SNAPSHOTS=1 to accept it`);
}

const T0 = 1_767_225_600_000; // fixed clock: the texts must not depend on when the test runs
function session(): EngineEvent[] {
  let t = T0;
  const at = () => (t += 1000);
  return [
    { type: 'user_message', at: at(), text: 'Build the transcript importer in three phases; commit after each.' },
    {
      type: 'plan',
      at: at(),
      steps: [
        { text: 'Parse Claude Code records', status: 'in_progress' },
        { text: 'Parse Codex rollouts', status: 'pending' },
        { text: 'Wire the CLI', status: 'pending' },
      ],
    },
    { type: 'assistant_message', at: at(), text: 'Reading the schemas first.' },
    { type: 'tool_call', at: at(), id: 'c1', name: 'Edit', input: { file_path: '/repo/src/importer.ts', old_string: 'a', new_string: 'b' } },
    { type: 'tool_result', at: at(), id: 'c1', output: 'The file /repo/src/importer.ts has been updated.', isError: false },
    { type: 'tool_call', at: at(), id: 'c2', name: 'Bash', input: { command: 'npm test' } },
    { type: 'tool_result', at: at(), id: 'c2', output: 'Exit code 1\n  1 failing\n  AssertionError: expected 3 records, got 2', isError: true, exitCode: 1 },
    { type: 'tool_call', at: at(), id: 'c3', name: 'Bash', input: { command: 'git commit -am "importer: claude records"' } },
    { type: 'tool_result', at: at(), id: 'c3', output: '[main 1a2b3c4] importer: claude records\n 1 file changed', isError: false, exitCode: 0 },
    { type: 'boundary', at: at(), source: 'tool_result', boundary: { kind: 'commit', key: '1a2b3c4', detail: '1a2b3c4 importer: claude records' } },
    {
      type: 'plan',
      at: at(),
      steps: [
        { text: 'Parse Claude Code records', status: 'completed' },
        { text: 'Parse Codex rollouts', status: 'in_progress' },
        { text: 'Wire the CLI', status: 'pending' },
      ],
    },
    { type: 'assistant_message', at: at(), text: 'Phase 1 is committed. Next I will parse the Codex rollouts.' },
    { type: 'tokens', at: at(), used: usedFor(40), window: WINDOW },
    { type: 'evaluate', at: at(), point: 'turn_complete' },
  ];
}

const first = <T extends Effect['type']>(fx: Effect[], type: T) => {
  const e = fx.find((x) => x.type === type);
  if (!e) throw new Error(`no ${type} effect`);
  return e as Extract<Effect, { type: T }>;
};

describe('prompt snapshots (every rendered text a model sees)', () => {
  after(() => UPDATE.failIfUpdating());
  it('golden path with the agent packet: judgment, heads-up, one turn for the scratch notes and the packet, handoff', () => {
    let r = run(mkState(), session());
    const judgment = first(r.effects, 'request_judgment');
    expectSnapshot('judgment-system', judgment.system);
    expectSnapshot('judgment-user', judgment.user);
    r = run(r.state, [
      { type: 'judgment_result', at: T0 + 60_000, corrId: judgment.corrId, text: '{"should_compact": true, "reason": "phase boundary: phase 1 committed"}' },
    ]);
    expectSnapshot('heads-up', first(r.effects, 'inject_heads_up').text);
    const packet = first(r.effects, 'request_packet');
    expectSnapshot('packet-request-with-scratch', packet.text);
    r = run(r.state, [{ type: 'packet', at: T0 + 62_000, seqId: packet.seqId, text: GOOD_PACKET, scratchWritten: true }]);
    // The agent's packet stands in for the summary (with the facts rawr recorded appended): no summary call.
    expectSnapshot('agent-packet-with-facts', first(r.effects, 'compact').packet);
    r = run(r.state, [{ type: 'compaction_done', at: T0 + 63_000, seqId: packet.seqId, tokensBefore: usedFor(40), tokensAfter: 9000 }]);
    expectSnapshot('handoff-agent-packet', first(r.effects, 'inject_handoff').text);
  });

  it('the packet request alone (no scratch notes); the scratch turn and the summary of the watcher packet', () => {
    const alone = run(mkState({ scratch_write_enabled: false, judgment_enabled: false }), session());
    expectSnapshot('packet-request', first(alone.effects, 'request_packet').text);
    let r = run(mkState({ packet_author: 'watcher', judgment_enabled: false }), session());
    const scratch = first(r.effects, 'request_scratch_write');
    expectSnapshot('scratch-write', scratch.text);
    r = run(r.state, [{ type: 'scratch_written', at: T0 + 61_000, seqId: scratch.seqId, path: scratch.path }]);
    expectSnapshot('compaction-summary', first(r.effects, 'compact').summaryPrompt);
  });

  it('watcher packet and its handoff; /compact instructions in the summary prompt; the recent-turns introduction', () => {
    let r = run(mkState({ packet_author: 'watcher', scratch_write_enabled: false, judgment_enabled: false }), session());
    expectSnapshot('watcher-packet', first(r.effects, 'show_packet').packet);
    const seqId = first(r.effects, 'compact').seqId;
    r = run(r.state, [{ type: 'compaction_done', at: T0 + 63_000, seqId, tokensBefore: usedFor(40), tokensAfter: 9000 }]);
    expectSnapshot('handoff-watcher-packet', first(r.effects, 'inject_handoff').text);
    const manual = run(mkState({ scratch_write_enabled: false, packet_author: 'watcher' }), [
      ...session().slice(0, -1),
      { type: 'compact_now', at: T0 + 70_000, instructions: 'keep the commit hashes' },
    ]);
    expectSnapshot('compaction-summary-with-instructions', first(manual.effects, 'compact').summaryPrompt);
    expectSnapshot('recent-intro', recentIntroText(12, 3456));
  });
});
