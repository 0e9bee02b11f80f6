/**
 * Replay with a real judgment LM: the scripted model is served over loopback HTTP and reached through
 * the real `openai` client (src/cli/replay/judge.ts), and its verdicts change where rawr compacts.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openAIJudge } from '../../src/cli/replay/judge';
import { replayFile, replayFileWithJudge } from '../../src/cli/replay/replayCommand';
import { startScriptedModel, systemOrFirstText } from '../support/scriptedModel';
import { shipped } from '../support/engine';
import { needShared } from '../support/sharedData';

const dir = process.env.RAWR_TRANSCRIPTS ?? resolve(__dirname, '../../../../shared/data/transcripts');
const file = resolve(dir, 'claude-spotter-258c7280.jsonl');

type Summary = { compactions: Array<{ line: number; code: string }> };
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').pop()!) as Summary;
const decisions = (out: string) =>
  out
    .trim()
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as { line: number; action: string; reason: string });

describe('rawr replay with a judgment endpoint', function () {
  this.timeout(60_000);
  const opts = { settings: shipped.settings, prompts: shipped.prompts, json: true, file: 'x' };

  before(function () {
    needShared(this, file);
  });

  it('without a judge, judgment is decided by the deterministic rule and says so (not "judgment timed out")', () => {
    const out = replayFile(readFileSync(file, 'utf8'), opts);
    const judgedPoints = decisions(out).filter((d) => /judgment:/.test(d.reason));
    assert.ok(judgedPoints.length > 0, 'this recording reaches judgment at least once');
    for (const d of judgedPoints) {
      assert.match(d.reason, /fallback \(no judge configured: deterministic rule\)/);
      assert.doesNotMatch(d.reason, /timed out/);
    }
  });

  it("a judge that approves turns the fallback's early-tier veto into a compaction at the first commit", async () => {
    const text = readFileSync(file, 'utf8');
    // Without the phase forecast: where it says the next phase does not fit, the fallback approves by
    // itself (judgment.ts), and this test is about the judge overturning the fallback's early-tier veto.
    const opts = { settings: { ...shipped.settings, forecast_enabled: false }, prompts: shipped.prompts, json: true, file: 'x' };
    const fallback = lastJson(replayFile(text, opts));
    const server = await startScriptedModel([
      {
        when: (r) => systemOrFirstText(r).includes('internal scheduler deciding whether to trigger RAWR auto-compaction'),
        reply: { text: '{"should_compact": true, "reason": "scripted judge: commit closes the phase"}' },
      },
    ]);
    try {
      let calls = 0;
      const out = await replayFileWithJudge(text, opts, openAIJudge(server.url, 'judge'), (n) => (calls = n));
      const judged = lastJson(out);
      assert.ok(calls >= 1, 'the judge was asked');
      assert.equal(server.requests.length, calls, 'one HTTP request per judgment: answers are reused across re-runs');
      assert.ok(
        judged.compactions[0]!.line < fallback.compactions[0]!.line,
        `judge moved the first compaction earlier: ${judged.compactions[0]!.line} < ${fallback.compactions[0]!.line}`,
      );
      const first = decisions(out).find((d) => d.action === 'compact')!;
      assert.match(first.reason, /judgment: scripted judge: commit closes the phase/);
      // The request carried the judgment context plus the plan trail and the user-request chain.
      const sent = JSON.stringify(server.requests[0]!.messages);
      assert.match(sent, /User request chain/);
      assert.match(sent, /Plan trail/);
    } finally {
      await server.close();
    }
  });

  it('a judge that vetoes leaves only compactions it cannot veto (emergency)', async () => {
    const text = readFileSync(file, 'utf8');
    const veto = async () => '{"should_compact": false, "reason": "mid-step"}';
    const out = await replayFileWithJudge(text, opts, veto);
    for (const c of lastJson(out).compactions) assert.equal(c.code, 'emergency');
    assert.ok(decisions(out).some((d) => /judgment: mid-step/.test(d.reason)));
  });

  it('the CLI takes --judge-url/--judge-model and reaches the endpoint over HTTP', async () => {
    const server = await startScriptedModel([{ when: () => true, reply: { text: '{"should_compact": false, "reason": "cli judge says wait"}' } }]);
    try {
      const cli = resolve(__dirname, '../../src/cli/main.js');
      const { spawn } = await import('node:child_process');
      const child = spawn(process.execPath, [cli, 'replay', file, '--json', '--judge-url', server.url, '--judge-model', 'judge'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (err += d));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      assert.equal(code, 0, err);
      assert.match(err, /judgment 1 answered by judge/);
      assert.ok(decisions(out).some((d) => /judgment: cli judge says wait/.test(d.reason)));
      assert.ok(server.requests.length >= 1);
    } finally {
      await server.close();
    }
  });

  it('garbage from the judge falls back deterministically and says so', async () => {
    const text = readFileSync(file, 'utf8');
    const out = await replayFileWithJudge(text, opts, async () => 'I think you should compact!');
    assert.ok(decisions(out).some((d) => /fallback \(invalid judgment output, not JSON/.test(d.reason)));
    assert.deepEqual(
      lastJson(out).compactions.map((c) => c.line),
      lastJson(replayFile(text, opts)).compactions.map((c) => c.line),
    );
  });
});
