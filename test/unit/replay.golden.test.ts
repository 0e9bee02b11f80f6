/**
 * The golden replay: what rawr decides on every shared recording, checked in (test/golden/replay/, one
 * file per recording) so that a change of how agent activity reaches the engine — the adapter, the
 * replay driver, `rawr handoff`, live follow — cannot change a decision unnoticed (issue 19).
 *
 * Per recording: the decisions of `rawr replay --json` (line, point, action, tier, boundaries, code), the
 * decisions of the live-follow replay (rawr does not compact someone else's agent), and a digest of what
 * `rawr handoff` puts into the thread at the end of the recording and at its first rawr compaction.
 *
 * The recordings are enumerated from the shared data folders, never listed here: a recording without a
 * golden file fails (write it with RAWR_UPDATE_GOLDEN=1 after checking the change is intended: that run
 * fails after writing, and refuses to run under CI — test/support/updateMode.ts), and so does a golden
 * file whose recording is gone. A deliberate change of the decision rule (settings, the
 * arbiter) updates these files in the same commit, with the reason.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { dirReader, shippedPromptsDir } from '../../src/core/prompts/fs';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { replay, type ReplayDecision } from '../../src/core/replay/driver';
import { handoffAt } from '../../src/core/replay/handoffAt';
import { loadRecording, replayFile } from '../../src/cli/replay/replayCommand';
import { needShared, TRANSCRIPTS_DIR } from '../support/sharedData';
import { updateMode } from '../support/updateMode';

/** The shared data root: the folder of the transcripts folder (RAWR_TRANSCRIPTS moves both). */
const DATA = path.dirname(TRANSCRIPTS_DIR);
/** Compiled to out/test/unit/; the golden files live in the source tree. */
const GOLDEN = path.resolve(__dirname, '../../../test/golden/replay');
const UPDATE = updateMode('RAWR_UPDATE_GOLDEN');

/** One decision, in the fields the issue names: line, point, action, tier, boundaries, reason code. */
type Row = [line: number, point: string, action: string, tier: string | null, code: string, boundaries: string[]];
const row = (d: Pick<ReplayDecision, 'line' | 'point' | 'action' | 'tier' | 'code' | 'boundaries'>): Row => [
  d.line,
  d.point,
  d.action,
  d.tier,
  d.code,
  d.boundaries,
];

interface Golden {
  replay: Row[];
  compactions: number[];
  live: Row[];
  /** `rawr handoff` at a line: the digest of packet + handoff + kept tail, and the token counts. */
  handoff: Array<{ line: number; sha256: string; tokens: Record<string, number> }>;
}

/** Every recording in the shared data folders (each folder's *.jsonl), as `folder/file`. */
function recordings(): string[] {
  const out: string[] = [];
  for (const dir of fs.readdirSync(DATA, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const f of fs.readdirSync(path.join(DATA, dir.name))) if (f.endsWith('.jsonl')) out.push(`${dir.name}/${f}`);
  }
  return out.sort();
}

function goldenOf(rel: string): Golden {
  const set = loadPromptSet([dirReader(shippedPromptsDir())]);
  const file = path.join(DATA, rel);
  const options = { settings: set.settings, prompts: set.prompts, json: true, file };
  const lines = replayFile({ path: file }, options).trimEnd().split('\n');
  const parsed = lines.map((l) => JSON.parse(l) as ReplayDecision | { type: 'summary'; compactions: Array<{ line: number }> });
  const decisions = parsed.filter((p): p is ReplayDecision => p.type === 'decision');
  const summary = parsed.at(-1) as { type: string; compactions: Array<{ line: number }> };
  assert.equal(summary.type, 'summary', `${rel}: the last line is the summary`);
  const rec = loadRecording({ path: file });
  const live = replay(rec, { settings: set.settings, prompts: set.prompts, live: true }).decisions;
  const at = [...new Set([summary.compactions[0]?.line, rec.lines + 1].filter((n): n is number => n !== undefined))];
  const handoff = at.map((line) => {
    const h = handoffAt(rec, line, set.settings, set.prompts);
    const sha256 = createHash('sha256')
      .update(JSON.stringify([h.packet, h.handoff, h.tail]))
      .digest('hex');
    return { line, sha256, tokens: h.tokens };
  });
  return { replay: decisions.map(row), compactions: summary.compactions.map((c) => c.line), live: live.map(row), handoff };
}

/** One decision a line: a change shows as a readable diff. */
function serialize(g: Golden): string {
  const rows = (rs: Row[]) => (rs.length ? `[\n${rs.map((r) => `    ${JSON.stringify(r)}`).join(',\n')}\n  ]` : '[]');
  return (
    `{\n  "replay": ${rows(g.replay)},\n  "compactions": ${JSON.stringify(g.compactions)},\n  "live": ${rows(g.live)},\n` +
    `  "handoff": ${JSON.stringify(g.handoff)}\n}\n`
  );
}

const goldenPath = (rel: string) => path.join(GOLDEN, rel.replace(/\.jsonl$/, '.json'));

describe('golden replay: the decisions on every shared recording are the checked-in ones', function () {
  this.timeout(600_000);
  before(function () {
    needShared(this, DATA);
  });
  after(() => UPDATE.failIfUpdating());

  it('every recording has a golden file and every golden file a recording', () => {
    const recs = recordings();
    assert.ok(recs.length > 0, `no recording under ${DATA}`);
    const missing = recs.filter((r) => !fs.existsSync(goldenPath(r)));
    if (!UPDATE.on) assert.deepEqual(missing, [], `recordings with no golden file (write them with RAWR_UPDATE_GOLDEN=1): ${missing.join(', ')}`);
    const stale: string[] = [];
    for (const dir of fs.existsSync(GOLDEN) ? fs.readdirSync(GOLDEN) : [])
      for (const f of fs.readdirSync(path.join(GOLDEN, dir))) if (!recs.includes(`${dir}/${f.replace(/\.json$/, '.jsonl')}`)) stale.push(`${dir}/${f}`);
    assert.deepEqual(stale, [], 'golden files whose recording is gone');
  });

  it('replay, live follow and handoff decide as the golden files say', () => {
    const differ: string[] = [];
    for (const rel of recordings()) {
      const now = serialize(goldenOf(rel));
      const file = goldenPath(rel);
      if (UPDATE.on) {
        UPDATE.write(file, now);
        continue;
      }
      if (!fs.existsSync(file)) continue; // reported by the test above
      const was = fs.readFileSync(file, 'utf8');
      if (was !== now) differ.push(`${rel}: ${firstDifference(was, now)}`);
    }
    assert.deepEqual(differ, [], 'recordings whose decisions changed');
  });
});

function firstDifference(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) return `golden line ${i + 1}: was ${x[i] ?? '(none)'}, now ${y[i] ?? '(none)'}`;
  return 'same';
}
