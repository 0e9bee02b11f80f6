/**
 * The generated phased sessions (test/bench/phasedGen.ts) are written as Claude Code 2.1 writes a
 * transcript: one model response is several records (one content block each) sharing one message id,
 * one usage and one stop_reason, one after the other; a response with stop_reason tool_use calls a tool
 * (its tool_use block last) and its results follow it; one without ends the turn (the person's prompt or
 * the end follows); the recorded tool compacts only between responses (after tool results or a prompt),
 * never inside one nor between a tool_use and its result. The labels point at the records they name.
 */
import * as assert from 'node:assert/strict';
import { generateFamilies, type GeneratedSession } from '../bench/phasedGen';

interface Rec {
  type: string;
  uuid: string;
  parentUuid: string | null;
  timestamp: string;
  subtype?: string;
  isCompactSummary?: boolean;
  requestId?: string;
  message: {
    id?: string;
    stop_reason?: string | null;
    usage?: Record<string, number>;
    content: string | Array<{ type: string; id?: string; tool_use_id?: string }>;
  } | null;
}

const blocks = (r: Rec) => (r.message && Array.isArray(r.message.content) ? r.message.content : []);
const isPrompt = (r: Rec | undefined) => r?.type === 'user' && typeof r.message?.content === 'string' && r.isCompactSummary !== true;
const isResults = (r: Rec | undefined) => r?.type === 'user' && blocks(r).length > 0 && blocks(r).every((b) => b.type === 'tool_result');
const contextOf = (r: Rec) => {
  const u = r.message!.usage!;
  return u.input_tokens! + u.cache_creation_input_tokens! + u.cache_read_input_tokens!;
};

/** A generated session's records, one per line. */
const recordsOf = (s: GeneratedSession): Rec[] =>
  s.text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec);

/** Every violation of the format in one session (empty: none), as `line N: what`. */
export function formatViolations(s: GeneratedSession): string[] {
  const recs = recordsOf(s);
  const bad: string[] = [];
  const at = (i: number, what: string) => bad.push(`${s.name} line ${i + 1}: ${what}`);
  const seenIds = new Set<string>();
  const seenUuids = new Set<string>();
  let clock = 0;
  let i = 0;
  for (const [k, r] of recs.entries()) {
    if (r.parentUuid !== (k ? recs[k - 1]!.uuid : null)) at(k, 'parentUuid is not the record before');
    if (seenUuids.has(r.uuid)) at(k, 'uuid used twice');
    seenUuids.add(r.uuid);
    const time = Date.parse(r.timestamp);
    if (!(time >= clock)) at(k, 'timestamp goes back');
    clock = time;
  }
  while (i < recs.length) {
    const r = recs[i]!;
    if (r.type === 'assistant') {
      // One response: the records sharing its message id, one after the other.
      const id = r.message!.id!;
      if (seenIds.has(id)) at(i, `message id ${id} of an earlier response again`);
      seenIds.add(id);
      let j = i;
      while (j < recs.length && recs[j]!.type === 'assistant' && recs[j]!.message!.id === id) j++;
      const resp = recs.slice(i, j);
      const content = resp.flatMap(blocks);
      const toolUses = content.filter((b) => b.type === 'tool_use');
      const stops = new Set(resp.map((x) => x.message!.stop_reason));
      if (stops.size !== 1) at(i, `one response, stop reasons ${[...stops].join(', ')}`);
      if (new Set(resp.map((x) => JSON.stringify(x.message!.usage))).size !== 1) at(i, 'one response, different usages');
      if (new Set(resp.map((x) => x.requestId)).size !== 1) at(i, 'one response, different request ids');
      const stop = resp[0]!.message!.stop_reason;
      if (stop === 'tool_use') {
        if (toolUses.length === 0) at(i, 'stop_reason tool_use without a tool_use block');
        else if (content[content.length - 1]!.type !== 'tool_use') at(i, 'a block after the tool call');
        // Its results, one after the other, for exactly its calls.
        const wanted = toolUses.map((b) => b.id);
        const got: Array<string | undefined> = [];
        for (; j < recs.length && isResults(recs[j]); j++) got.push(...blocks(recs[j]!).map((b) => b.tool_use_id));
        if (JSON.stringify(got) !== JSON.stringify(wanted))
          at(
            j,
            `after the response of line ${i + 1} (${wanted.join(', ')}): ${got.length ? got.join(', ') : `a ${recs[j]?.subtype ?? recs[j]?.type ?? 'end'} record`}`,
          );
      } else if (stop === 'end_turn') {
        if (toolUses.length > 0) at(i, 'stop_reason end_turn with a tool_use block');
        if (j < recs.length && !isPrompt(recs[j]))
          at(j, `after a response that ends the turn: a ${recs[j]!.subtype ?? recs[j]!.type} record, not the person's prompt`);
      } else at(i, `stop_reason ${String(stop)}`);
      i = j;
      continue;
    }
    if (r.type === 'system' && r.subtype === 'compact_boundary') {
      // Between responses: after tool results or a prompt, then the summary, then a new response.
      const before = recs[i - 1];
      if (!isResults(before) && !isPrompt(before)) at(i, `compaction after a record of type ${before?.type ?? 'none'}, not at a request boundary`);
      if (recs[i + 1]?.isCompactSummary !== true) at(i, 'compaction without its summary after it');
      const next = recs[i + 2];
      if (next && (next.type !== 'assistant' || seenIds.has(next.message!.id!))) at(i + 2, 'after the compaction: not a new response');
      i += 2;
      continue;
    }
    if (isResults(r)) at(i, 'tool results that follow no response calling them');
    i++;
  }
  // The labels name the records: a point per assistant record (its usage), the closes, the compactions.
  const points = new Map(s.labels.points);
  recs.forEach((r, k) => {
    if (r.type === 'assistant' && points.get(k + 1) !== contextOf(r)) at(k, `point ${points.get(k + 1)} for a usage of ${contextOf(r)}`);
  });
  for (const [line] of s.labels.points) if (recs[line - 1]?.type !== 'assistant') at(line - 1, 'a point on a record that is not the model');
  for (const [first, last] of s.labels.windows) {
    const todo = blocks(recs[first - 1]!)[0] as { name?: string } | undefined;
    if (todo?.name !== 'TodoWrite') at(first - 1, 'a close that does not start at a TodoWrite');
    if (blocks(recs[last - 1]!)[0]?.type !== 'text') at(last - 1, 'a close that does not end at a text');
  }
  for (const line of s.labels.original_compactions ?? [])
    if (recs[line - 1]?.subtype !== 'compact_boundary') at(line - 1, 'an original compaction that is not one');
  return bad;
}

describe('generated phased sessions: the Claude Code transcript format', () => {
  it('every family, seeds 1-5: responses, tool results and compactions as Claude Code writes them', () => {
    let runOn = 0;
    let compacted = 0;
    let textThenTool = 0;
    for (let seed = 1; seed <= 5; seed++)
      for (const { sessions } of generateFamilies(seed, 8))
        for (const s of sessions) {
          assert.deepEqual(formatViolations(s), []);
          runOn += (s.text.match(/Go on with phase/g) ?? []).length;
          compacted += (s.labels.original_compactions ?? []).length;
          textThenTool += (s.text.match(/"content":\[\{"type":"text"[^\n]*\n[^\n]*"content":\[\{"type":"tool_use"/g) ?? []).length;
        }
    // The cases the checks are about do occur: turns that end, responses that go on, compactions.
    assert.ok(runOn > 100 && compacted > 100 && textThenTool > 100, `${runOn} turns ended, ${compacted} compactions, ${textThenTool} text+tool responses`);
  });

  it('a phase that runs straight on: the closing text and the next call are one response, and a compaction due there waits for its results', () => {
    // seed 1, even-2: phase 3 ran straight on with the context at the recorded tool's threshold.
    const s = generateFamilies(1, 2)[0]!.sessions[1]!;
    const recs = recordsOf(s);
    const [, last] = s.labels.windows[2]!;
    const [closing, call, result] = [recs[last - 1]!, recs[last]!, recs[last + 1]!];
    assert.equal(blocks(closing)[0]!.type, 'text');
    assert.equal(blocks(call)[0]!.type, 'tool_use');
    assert.equal(call.message!.id, closing.message!.id);
    assert.equal(closing.message!.stop_reason, 'tool_use');
    assert.equal(blocks(result)[0]!.tool_use_id, blocks(call)[0]!.id);
    assert.ok(
      (s.labels.original_compactions ?? []).some((l) => l > last + 2 && l < last + 8),
      `${(s.labels.original_compactions ?? []).join(',')} after ${last}`,
    );
  });

  it('the checks see the format errors of earlier generators', () => {
    // seed 1, even-2 as earlier generators wrote phase 3's close: the closing text a response of its own
    // that says tool_use, the recorded tool's compaction after it, then the Read under a new message id.
    const s = generateFamilies(1, 2)[0]!.sessions[1]!;
    const recs = recordsOf(s);
    const [, last] = s.labels.windows[2]!;
    const boundary = recs.findIndex((r, k) => k > last && r.subtype === 'compact_boundary');
    const old = [...recs.slice(0, last), ...recs.slice(boundary, boundary + 2), ...recs.slice(last, boundary), ...recs.slice(boundary + 2)].map((r) =>
      structuredClone(r),
    );
    old[last + 2]!.message!.id = 'msg_even2_new';
    old.forEach((r, k) => (r.parentUuid = k ? old[k - 1]!.uuid : null));
    const found = formatViolations({ ...s, text: old.map((r) => JSON.stringify(r)).join('\n') + '\n' });
    assert.ok(found.includes(`even-2 line ${last}: stop_reason tool_use without a tool_use block`), found.join('\n'));
    assert.ok(found.includes(`even-2 line ${last + 1}: compaction after a record of type assistant, not at a request boundary`), found.join('\n'));
  });
});
