/**
 * Fuzz tier (fast-check, bounded): every boundary where untrusted input enters rawr gets random and
 * mutated input and must answer without throwing — the importers (random and mutated records), prompt
 * frontmatter, the webview's messages, the core's JSON-RPC params, the hooks' stdin, the shell parser,
 * the thread log reader. Runs are bounded (RAWR_FUZZ_RUNS, default 200 per property) and inputs are
 * capped in size, so the tier's time and memory are bounded too; a failure prints the seed to rerun.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseHookInput } from '../../src/core/hooks/shared/input';
import { parseLog } from '../../src/core/logformat/reader';
import { parseFrontmatter } from '../../src/core/prompts/frontmatter';
import { loadPromptSet } from '../../src/core/prompts/promptSet';
import { importClaude } from '../../src/core/replay/import/claude';
import { importCodex } from '../../src/core/replay/import/codex';
import { importRawrLog } from '../../src/core/replay/import/rawrLog';
import { analyzeShellCommand } from '../../src/core/signals/shell';
import { parseWebviewMessage } from '../../src/host/panel/messages';
import { PARAMS } from '../../src/core/protocol/coreProtocol';

const RUNS = Number(process.env.RAWR_FUZZ_RUNS ?? 200);
const opts = { numRuns: RUNS, ...(process.env.RAWR_FUZZ_SEED ? { seed: Number(process.env.RAWR_FUZZ_SEED) } : {}) };

/** JSON values biased towards the shapes the importers look at (type fields, nested message/payload). */
const TYPES = [
  'user',
  'assistant',
  'system',
  'progress',
  'summary',
  'session_meta',
  'turn_context',
  'response_item',
  'event_msg',
  'compacted',
  'text',
  'tool_use',
  'tool_result',
  'function_call',
  'function_call_output',
  'token_count',
  'message',
  'explode',
];
const anyJson = fc.jsonValue({ maxDepth: 4 });
const recordish = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, anyJson, tie('obj'), fc.array(tie('obj'), { maxLength: 4 })),
  obj: fc.dictionary(
    fc.constantFrom(
      'type',
      'message',
      'payload',
      'content',
      'role',
      'id',
      'uuid',
      'sessionId',
      'usage',
      'input',
      'output',
      'call_id',
      'name',
      'arguments',
      'info',
      'text',
      'timestamp',
      'rawr',
      'kind',
      'event',
      'thread',
      'at',
    ),
    fc.oneof(fc.constantFrom(...TYPES), fc.integer(), fc.constant(null), fc.boolean(), tie('value')),
    { maxKeys: 8 },
  ),
}));
const jsonl = fc
  .array(
    recordish.obj.map((o) => JSON.stringify(o)),
    { maxLength: 30 },
  )
  .map((ls) => ls.join('\n'));

/** A line mutated: truncated, a byte flipped, a quote or brace dropped, a BOM, or doubled. */
const mutate = (text: string) =>
  fc.tuple(fc.nat(), fc.constantFrom('truncate', 'flip', 'drop', 'bom', 'double', 'crlf')).map(([n, how]) => {
    const k = text.length ? n % text.length : 0;
    switch (how) {
      case 'truncate':
        return text.slice(0, k);
      case 'flip':
        return text.slice(0, k) + String.fromCharCode(text.charCodeAt(k) ^ 0x20 || 0x41) + text.slice(k + 1);
      case 'drop':
        return text.slice(0, k) + text.slice(k + 1);
      case 'bom':
        return `\ufeff${text}`;
      case 'double':
        return `${text}\n${text}`;
      case 'crlf':
        return text.replace(/\n/g, '\r\n');
    }
  });

const CLAUDE_SEED = [
  { type: 'user', uuid: 'u1', sessionId: 's', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'Build it' } },
  {
    type: 'assistant',
    uuid: 'a1',
    sessionId: 's',
    timestamp: '2026-01-01T00:00:01Z',
    message: {
      id: 'm1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'git commit -m x' } }],
      usage: { input_tokens: 100 },
    },
  },
  {
    type: 'user',
    uuid: 'u2',
    sessionId: 's',
    timestamp: '2026-01-01T00:00:02Z',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '[main abcdef0] x' }] },
  },
]
  .map((r) => JSON.stringify(r))
  .join('\n');
const CODEX_SEED = [
  { timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: 's' } },
  { timestamp: '2026-01-01T00:00:01Z', type: 'event_msg', payload: { type: 'user_message', message: 'Build it' } },
  {
    timestamp: '2026-01-01T00:00:02Z',
    type: 'response_item',
    payload: { type: 'function_call', name: 'shell', arguments: '{"command":["git","commit","-m","x"]}', call_id: 'c1' },
  },
  { timestamp: '2026-01-01T00:00:03Z', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: 'Exit code: 0' } },
]
  .map((r) => JSON.stringify(r))
  .join('\n');

describe('fuzz: untrusted inputs never throw', function () {
  this.timeout(300_000);

  it('importers: random JSON Lines', () => {
    fc.assert(
      fc.property(jsonl, (text) => {
        for (const imp of [importClaude, importCodex, importRawrLog]) {
          const rec = imp(text);
          assert.ok(rec.lines <= text.split('\n').length);
        }
      }),
      opts,
    );
  });

  it('importers: mutated real-shaped records', () => {
    fc.assert(
      fc.property(fc.constantFrom(CLAUDE_SEED, CODEX_SEED).chain(mutate), (text) => {
        importClaude(text);
        importCodex(text);
        importRawrLog(text);
      }),
      opts,
    );
  });

  it('thread log reader: random and mutated lines', () => {
    fc.assert(
      fc.property(fc.oneof(jsonl, jsonl.chain(mutate), fc.string({ maxLength: 2000 })), (text) => {
        const { records, problems } = parseLog(text);
        assert.ok(records.length + problems.length <= text.split('\n').length);
      }),
      opts,
    );
  });

  it('prompt frontmatter: random YAML-ish text', () => {
    const yamlish = fc
      .array(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.constantFrom(
            'a: &x [1, 2]',
            'b: *x',
            'c: !!binary x',
            '? [a]',
            'mode: auto',
            'cooldown_turns: "2"',
            'early_percent_remaining_lt: -1',
            '- item',
            '{a: [b',
            "'unclosed",
            '<<: *x',
          ),
        ),
        { maxLength: 12 },
      )
      .map((ls) => `---\n${ls.join('\n')}\n---\nbody`);
    fc.assert(
      fc.property(fc.oneof(yamlish, fc.string({ maxLength: 500 })), (text) => {
        parseFrontmatter(text, 'f.md');
        const set = loadPromptSet([(f) => (f === 'rawr-auto-compact.md' ? { path: f, text } : undefined)]);
        assert.ok(set.prompts.packetRequest.length > 0);
      }),
      opts,
    );
  });

  it('webview messages: random values are parsed or rejected', () => {
    const msg = fc.oneof(
      anyJson,
      recordish.obj,
      fc.record(
        { type: fc.constantFrom('ready', 'compactNow', 'selectThread', 'exportLog', 'cancel', 'x'), threadId: fc.oneof(fc.string(), fc.integer()) },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(msg, (raw) => {
        const r = parseWebviewMessage(raw);
        assert.equal(typeof r.ok, 'boolean');
      }),
      opts,
    );
  });

  it("JSON-RPC params: every method's schema answers random params without throwing", () => {
    const schemas = Object.values(PARAMS);
    fc.assert(
      fc.property(fc.nat({ max: schemas.length - 1 }), fc.oneof(anyJson, recordish.obj, recordish.value), (k, raw) => {
        const r = schemas[k]!.safeParse(raw);
        assert.equal(typeof r.success, 'boolean');
      }),
      opts,
    );
  });

  it('hook stdin: random text and JSON', () => {
    const events = ['PreCompact', 'UserPromptSubmit', 'SessionStart'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...events),
        fc.oneof(
          fc.string({ maxLength: 500 }),
          recordish.obj.map((o) => JSON.stringify(o)),
          anyJson.map((v) => JSON.stringify(v)),
        ),
        (event, text) => {
          const r = parseHookInput(event, text);
          assert.equal(typeof r.ok, 'boolean');
        },
      ),
      opts,
    );
  });

  it('shell parser: random command lines with nesting, quotes and heredocs', () => {
    const piece = fc.constantFrom(
      'git',
      'commit',
      '-m',
      '"',
      "'",
      '$(',
      ')',
      '`',
      '<(',
      '<<EOF\n',
      '\nEOF\n',
      '\\',
      ';',
      '&&',
      '|',
      '#',
      ' ',
      'x',
      '\n',
      '${',
      '}',
      '$((',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 400 }).map((p) => p.join('')),
        fc.string({ maxLength: 200 }),
        (command, output) => {
          analyzeShellCommand({ command, exitCode: 0, output });
        },
      ),
      opts,
    );
  });
});
