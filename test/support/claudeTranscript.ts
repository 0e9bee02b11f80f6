/** A Claude Code 2.1 transcript written record by record, for the hooks' tests. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A Claude Code 2.1 transcript written record by record (ids and timestamps as Claude Code writes them). */
export class Transcript {
  readonly file: string;
  private n = 0;
  private t = Date.parse('2026-11-20T10:00:00Z');
  /** `model`: what the responses name (Claude Code writes the model it called; the window follows from it). */
  constructor(
    readonly root: string,
    readonly model = 'claude-opus-5-5',
  ) {
    this.file = path.join(root, 'session.jsonl');
    fs.writeFileSync(this.file, '');
  }
  private write(rec: object) {
    this.t += 1000;
    fs.appendFileSync(
      this.file,
      `${JSON.stringify({ sessionId: 'sess', cwd: this.root, timestamp: new Date(this.t).toISOString(), uuid: `u${++this.n}`, ...rec })}\n`,
    );
  }
  prompt(text: string) {
    this.write({ type: 'user', message: { role: 'user', content: text } });
  }
  /** One model response: a text and a Bash call, with the context it reports. */
  bash(command: string, context: number, output: string) {
    this.bashResult(this.bashCall(command, context), output);
  }
  /** The response with the Bash call alone (its result not written yet); its call id. */
  bashCall(command: string, context: number): string {
    return this.toolCall('Bash', { command }, context);
  }
  /** One model response calling any tool (Read, Write, Edit…), then its result. */
  tool(name: string, input: object, context: number, output: string) {
    this.bashResult(this.toolCall(name, input, context), output);
  }
  /** The id the next tool call will have (a hook's payload names the call before its response is written). */
  nextCallId(): string {
    return `toolu_${this.n + 1}`;
  }
  /** The response with a tool call alone (its result not written yet); its call id. */
  toolCall(name: string, input: object, context: number): string {
    const id = `toolu_${++this.n}`;
    this.write({
      type: 'assistant',
      message: {
        id: `msg_${this.n}`,
        role: 'assistant',
        model: this.model,
        content: [
          { type: 'text', text: 'Working.' },
          { type: 'tool_use', id, name, input },
        ],
        usage: { input_tokens: context, output_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
    return id;
  }
  bashResult(id: string, output: string) {
    this.write({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
      toolUseResult: { stdout: output, stderr: '', interrupted: false },
    });
  }
  /** Claude Code's record of its own compaction. */
  compacted(preTokens: number, postTokens?: number) {
    this.write({
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      compactMetadata: { trigger: 'auto', preTokens, ...(postTokens !== undefined ? { postTokens } : {}) },
    });
  }
  answer(text: string, context: number) {
    this.write({
      type: 'assistant',
      message: {
        id: `msg_${++this.n}`,
        role: 'assistant',
        model: this.model,
        content: [{ type: 'text', text }],
        usage: { input_tokens: context, output_tokens: 50, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    });
  }
}

/** A large Claude Code 2.1 transcript written fast, step by step as strings (the record shapes of `Transcript`). */
class BulkWriter {
  private n = 0;
  private t = Date.parse('2026-11-20T10:00:00Z');
  constructor(private readonly cwd: string) {}
  private rec(o: object): string {
    this.t += 1000;
    return JSON.stringify({ sessionId: 'bench', cwd: this.cwd, timestamp: new Date(this.t).toISOString(), uuid: `u${++this.n}`, ...o });
  }
  prompt(text: string): string {
    return this.rec({ type: 'user', message: { role: 'user', content: text } });
  }
  /** One model response with a Bash call and its result (two lines). */
  step(context: number, output: string): string {
    const id = `toolu_${++this.n}`;
    const k = this.n;
    return [
      this.rec({
        type: 'assistant',
        message: {
          id: `msg_${k}`,
          role: 'assistant',
          model: 'claude-opus-5-5',
          content: [
            { type: 'text', text: `Looking at part ${k} of the module.` },
            { type: 'tool_use', id, name: 'Bash', input: { command: `grep -rn "part${k}" src/ | head -200` } },
          ],
          usage: { input_tokens: context, output_tokens: 80, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      }),
      this.rec({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
        toolUseResult: { stdout: output, stderr: '', interrupted: false },
      }),
    ].join('\n');
  }
}

/**
 * A transcript of `bytes` (a prompt, then model responses each with a Bash call and its ~6 KB result, the
 * context between Claude Code's threshold and rawr's boundary line: steering refuses), and `tailSteps`
 * more steps to append later one by one (the hook bench appends one before each call).
 */
export function writeLargeTranscript(file: string, cwd: string, bytes: number, tailSteps = 0, outputLines = 80): { tail: string[] } {
  const w = new BulkWriter(cwd);
  const output = Array.from(
    { length: outputLines },
    (_, i) => `src/module/file${i}.ts:${i + 1}:  const value${i} = compute(part, ${i}); // a line of grep output`,
  ).join('\n');
  const chunk: string[] = [w.prompt('Refactor the module and keep the tests green.')];
  let size = chunk[0]!.length + 1;
  fs.writeFileSync(file, '');
  // The context stays between Claude Code's threshold (autoCompactWindow - 33k) and rawr's boundary line: refusals.
  const context = (i: number) => 580_000 + (i % 50) * 1000;
  for (let i = 0; size < bytes; i++) {
    const s = w.step(context(i), output);
    chunk.push(s);
    size += s.length + 1;
    if (chunk.length >= 500) fs.appendFileSync(file, `${chunk.splice(0).join('\n')}\n`);
  }
  if (chunk.length) fs.appendFileSync(file, `${chunk.join('\n')}\n`);
  return { tail: Array.from({ length: tailSteps }, (_, i) => w.step(context(i), output)) };
}
