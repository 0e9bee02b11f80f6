/**
 * The compaction panel's wire format (zod, both directions) and its inert Markdown reader.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { contentSecurityPolicy, panelHtml } from '../../src/host/panel/html';
import { blocksText, parseInline, parseMarkdown } from '../../src/host/panel/markdown';
import { BlockSchema, HostMessageSchema, parsePanelState, parseWebviewMessage, ViewModelSchema } from '../../src/host/panel/messages';
import { gaugeOf } from '../../src/host/panel/viewModel';
import { shipped } from '../support/engine';

describe('panel messages: webview → host', () => {
  const ok = (m: unknown) => {
    const r = parseWebviewMessage(m);
    assert.ok(r.ok, `should accept ${JSON.stringify(m)}: ${!r.ok ? r.error : ''}`);
  };
  const bad = (m: unknown, why?: RegExp) => {
    const r = parseWebviewMessage(m);
    assert.ok(!r.ok, `should reject ${JSON.stringify(m)}`);
    if (why && !r.ok) assert.match(r.error, why);
  };

  it('accepts every action in its exact shape', () => {
    ok({ type: 'ready' });
    ok({ type: 'refresh' });
    ok({ type: 'selectThread', threadId: 'tabc123' });
    ok({ type: 'selectThread', threadId: null });
    ok({ type: 'compactNow', instructions: '' });
    ok({ type: 'compactNow', instructions: 'keep the API notes verbatim' });
    for (const mode of ['off', 'tag', 'suggest', 'auto']) ok({ type: 'setMode', mode });
    ok({ type: 'openSettings' });
    ok({ type: 'exportLog', threadId: 't1' });
    ok({ type: 'cancelSequence', threadId: 't1' });
    ok({ type: 'undo', threadId: 't1', seqId: 's12' });
    ok({ type: 'openScratch', path: '.scratch/agent-rawr-abc123.scratch.md' });
  });

  it('rejects unknown types, extra keys, wrong types and bad ids', () => {
    bad(null);
    bad('ready');
    bad({});
    bad({ type: 'eval', code: 'alert(1)' });
    bad({ type: 'ready', extra: 1 });
    bad({ type: 'setMode', mode: 'always' }, /mode/);
    bad({ type: 'selectThread', threadId: '../../etc/passwd' }, /threadId/);
    bad({ type: 'selectThread' });
    bad({ type: 'cancelSequence', threadId: 'a b' });
    bad({ type: 'undo', threadId: 't1', seqId: 's1; rm -rf' });
    bad({ type: 'compactNow', instructions: 'x'.repeat(4_001) });
    bad({ type: 'compactNow', instructions: 42 });
    bad({ type: 'exportLog', threadId: 'x'.repeat(81) });
  });

  it('openScratch only accepts a file directly in .scratch/ (no traversal, no absolute path)', () => {
    bad({ type: 'openScratch', path: '.scratch/../../.ssh/id_rsa' });
    bad({ type: 'openScratch', path: '/etc/passwd' });
    bad({ type: 'openScratch', path: '.scratch/sub/x.md' });
    bad({ type: 'openScratch', path: 'src/extension.ts' });
  });

  it('panel state from setState/serializer: lenient, defaults for anything unexpected', () => {
    assert.deepEqual(parsePanelState({ threadId: 't1', showNoise: true, vm: { big: 1 } }), { threadId: 't1', showNoise: true });
    assert.deepEqual(parsePanelState(undefined), { threadId: null, showNoise: false });
    assert.deepEqual(parsePanelState('junk'), { threadId: null, showNoise: false });
    assert.deepEqual(parsePanelState({ threadId: '../x', showNoise: 'yes' }), { threadId: null, showNoise: false });
  });
});

describe('panel messages: host → webview', () => {
  const emptyVm = () => ({
    threadId: null,
    threads: [],
    followActive: true,
    mode: null,
    turn: null,
    gauge: gaugeOf(null, null, false),
    boundaries: [],
    timeline: [],
    sequence: null,
    compactions: [],
    problems: [],
    updatedAt: 1,
  });

  it('a state message with a minimal view model passes; notices pass', () => {
    assert.ok(HostMessageSchema.safeParse({ type: 'state', vm: emptyVm() }).success);
    assert.ok(HostMessageSchema.safeParse({ type: 'notice', level: 'info', text: 'hi' }).success);
  });

  it('a view model with raw HTML in place of Markdown blocks, an unknown key or a bad enum is refused', () => {
    const withHtml = {
      ...emptyVm(),
      compactions: [
        {
          seqId: 's1',
          at: 1,
          tokensBefore: 2,
          tokensAfter: 1,
          text: null,
          reason: null,
          packetAuthor: 'agent',
          packet: '<b>x</b>',
          scratchPath: null,
          undone: false,
          canUndo: true,
        },
      ],
    };
    assert.ok(!ViewModelSchema.safeParse(withHtml).success);
    assert.ok(!ViewModelSchema.safeParse({ ...emptyVm(), html: '<script>' }).success);
    assert.ok(!ViewModelSchema.safeParse({ ...emptyVm(), mode: 'yolo' }).success);
    const blockWithHtmlKey = {
      ...emptyVm(),
      compactions: [
        {
          seqId: 's1',
          at: 1,
          tokensBefore: 2,
          tokensAfter: 1,
          text: null,
          reason: null,
          packetAuthor: 'agent',
          packet: [{ type: 'paragraph', inlines: [], html: '<i>' }],
          scratchPath: null,
          undone: false,
          canUndo: true,
        },
      ],
    };
    assert.ok(!ViewModelSchema.safeParse(blockWithHtmlKey).success);
  });

  it('the gauge needs exactly the four thresholds', () => {
    const g = gaugeOf(shipped.settings, { used: 1, window: 10 }, false);
    assert.ok(ViewModelSchema.safeParse({ ...emptyVm(), gauge: g }).success);
    assert.ok(!ViewModelSchema.safeParse({ ...emptyVm(), gauge: { ...g, thresholds: g.thresholds.slice(1) } }).success);
  });
});

describe('panel Markdown reader (data, never HTML)', () => {
  it('headings, paragraphs, lists (ordered, nested), fenced code, quotes, rules', () => {
    const blocks = parseMarkdown(
      [
        '# Title',
        '',
        'Some *text* with `code` and **bold**.',
        'Continued line.',
        '',
        '- one',
        '- two',
        '  - nested',
        '',
        '3. three',
        '4. four',
        '',
        '```js',
        'let a = "<b>";',
        '```',
        '',
        '> quoted',
        '',
        '---',
        '## Next ##',
      ].join('\n'),
    );
    assert.deepEqual(
      blocks.map((b) => b.type),
      ['heading', 'paragraph', 'list', 'list', 'code', 'quote', 'rule', 'heading'],
    );
    assert.deepEqual(blocks[0], { type: 'heading', level: 1, inlines: [{ t: 'text', v: 'Title' }] });
    assert.deepEqual(blocks[1], {
      type: 'paragraph',
      inlines: [
        { t: 'text', v: 'Some ' },
        { t: 'italic', v: 'text' },
        { t: 'text', v: ' with ' },
        { t: 'code', v: 'code' },
        { t: 'text', v: ' and ' },
        { t: 'bold', v: 'bold' },
        { t: 'text', v: '. Continued line.' },
      ],
    });
    const ul = blocks[2]!;
    assert.ok(ul.type === 'list' && !ul.ordered);
    assert.deepEqual(
      ul.items.map((i) => [i.level, blocksText([{ type: 'paragraph', inlines: i.inlines }])]),
      [
        [0, 'one'],
        [0, 'two'],
        [1, 'nested'],
      ],
    );
    const ol = blocks[3]!;
    assert.ok(ol.type === 'list' && ol.ordered && ol.start === 3 && ol.items.length === 2);
    assert.deepEqual(blocks[4], { type: 'code', lang: 'js', text: 'let a = "<b>";' });
    assert.deepEqual(blocks[7], { type: 'heading', level: 2, inlines: [{ t: 'text', v: 'Next' }] });
  });

  it('HTML in a packet stays literal text (there is no HTML node type to put it in)', () => {
    const src = 'Trap: <img src=x onerror=alert(1)> and <script>alert(1)</script>\n\n- <b>not bold</b>\n\n<div onclick="x()">raw block</div>';
    const blocks = parseMarkdown(src);
    const text = blocksText(blocks);
    assert.ok(text.includes('<img src=x onerror=alert(1)>'));
    assert.ok(text.includes('<script>alert(1)</script>'));
    assert.ok(text.includes('<b>not bold</b>'));
    assert.ok(text.includes('<div onclick="x()">raw block</div>'));
    for (const b of blocks) assert.ok(['heading', 'paragraph', 'quote', 'list', 'code', 'rule', 'table'].includes(b.type));
  });

  it('inline edge cases: snake_case stays text, unclosed markers stay text, escapes', () => {
    assert.deepEqual(parseInline('a_b_c and foo_bar'), [{ t: 'text', v: 'a_b_c and foo_bar' }]);
    assert.deepEqual(parseInline('2 * 3 * 4'), [{ t: 'text', v: '2 * 3 * 4' }]);
    assert.deepEqual(parseInline('**open'), [{ t: 'text', v: '**open' }]);
    assert.deepEqual(parseInline('`open'), [{ t: 'text', v: '`open' }]);
    assert.deepEqual(parseInline('\\*not italic\\*'), [{ t: 'text', v: '*not italic*' }]);
    assert.deepEqual(parseInline('``a ` b``'), [{ t: 'code', v: 'a ` b' }]);
    assert.deepEqual(parseInline('_it_ now'), [
      { t: 'italic', v: 'it' },
      { t: 'text', v: ' now' },
    ]);
  });

  it('GFM tables (packets often hold them): header, alignment, rows, inline spans in cells', () => {
    const blocks = parseMarkdown(['| file | status | lines |', '|:---|:---:|---:|', '| `src/a.ts` | **done** | 12 |', '| b.md | open | 3 |'].join('\n'));
    assert.deepEqual(blocks, [
      {
        type: 'table',
        header: [[{ t: 'text', v: 'file' }], [{ t: 'text', v: 'status' }], [{ t: 'text', v: 'lines' }]],
        align: ['left', 'center', 'right'],
        rows: [
          [[{ t: 'code', v: 'src/a.ts' }], [{ t: 'bold', v: 'done' }], [{ t: 'text', v: '12' }]],
          [[{ t: 'text', v: 'b.md' }], [{ t: 'text', v: 'open' }], [{ t: 'text', v: '3' }]],
        ],
      },
    ]);
    assert.equal(blocksText(blocks), 'file | status | lines\nsrc/a.ts | done | 12\nb.md | open | 3');
  });

  it('links: http(s) and mailto keep their target; any other scheme is plain text; a bare URL stays text', () => {
    assert.deepEqual(parseInline('see [the PR](https://github.com/o/r/pull/1) or [mail](mailto:a@b.c)'), [
      { t: 'text', v: 'see ' },
      { t: 'link', v: 'the PR', href: 'https://github.com/o/r/pull/1' },
      { t: 'text', v: ' or ' },
      { t: 'link', v: 'mail', href: 'mailto:a@b.c' },
    ]);
    for (const bad of ['javascript:alert(1)', 'command:workbench.action.reloadWindow', 'file:///etc/passwd', 'vscode://x', 'data:text/html,<b>x</b>']) {
      const spans = parseInline(`[click](${bad})`);
      assert.ok(
        spans.every((x) => x.t !== 'link' && x.href === undefined),
        `${bad}: ${JSON.stringify(spans)}`,
      );
    }
    assert.deepEqual(parseInline('https://example.com'), [{ t: 'text', v: 'https://example.com' }]);
    assert.deepEqual(parseInline('![alt text](https://example.com/x.png)'), [{ t: 'text', v: 'alt text' }]);
  });

  it('a hostile packet: HTML, tags in table cells and links, forged attributes — all text, and valid for the message schema', () => {
    const src = [
      '# <script>alert(1)</script>',
      '',
      '| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |',
      '|---|---|',
      '| <iframe src="https://evil"></iframe> | [ok](https://example.com/"onmouseover="alert(1)) |',
      '',
      '<style>body{display:none}</style>',
      '',
      '> <a href="javascript:alert(1)">quoted</a>',
    ].join('\n');
    const blocks = parseMarkdown(src);
    const text = blocksText(blocks);
    for (const s of [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<iframe src="https://evil"></iframe>',
      '<style>body{display:none}</style>',
      '<a href="javascript:alert(1)">quoted</a>',
    ])
      assert.ok(text.includes(s), s);
    const hrefs = JSON.stringify(blocks).match(/"href":"[^"]*"/g) ?? [];
    assert.deepEqual(hrefs, ['"href":"https://example.com/%22onmouseover=%22alert(1)"']);
    for (const b of blocks) assert.ok(BlockSchema.safeParse(b).success, JSON.stringify(b));
    assert.ok(
      !BlockSchema.safeParse({ type: 'paragraph', inlines: [{ t: 'link', v: 'x', href: 'javascript:alert(1)' }] }).success,
      'the schema refuses a script link',
    );
  });

  it('deep nesting and many markers do not blow the stack or the time (markdown-it caps nesting)', () => {
    const deep = parseMarkdown('> '.repeat(5_000) + 'x\n\n' + '- '.repeat(5_000) + 'y\n\n' + '*'.repeat(20_000));
    assert.ok(deep.length > 0);
    for (const b of deep) assert.ok(BlockSchema.safeParse(b).success);
  });

  it('an unterminated fence takes the rest; a huge packet is clipped', () => {
    assert.deepEqual(parseMarkdown('```\ncode\nmore'), [{ type: 'code', lang: '', text: 'code\nmore' }]);
    const big = parseMarkdown('x'.repeat(200_000));
    assert.match(blocksText(big), /more characters\]$/);
    assert.ok(blocksText(big).length < 160_000);
  });
});

describe('panel HTML shell and webview script', () => {
  it('strict CSP with a nonce; only nonce-carrying scripts and the webview origin', () => {
    const html = panelHtml({
      cspSource: 'https://ext.vscode-cdn.net',
      nonce: 'abc+/=',
      codiconCss: 'https://ext/c.css',
      css: 'https://ext/p.css',
      js: 'https://ext/p.js',
      title: 'Rawr: Compaction',
    });
    assert.equal(
      contentSecurityPolicy('https://ext.vscode-cdn.net', 'abc+/='),
      "default-src 'none'; style-src https://ext.vscode-cdn.net 'nonce-abc+/='; script-src 'nonce-abc+/='; font-src https://ext.vscode-cdn.net; img-src https://ext.vscode-cdn.net",
    );
    assert.ok(html.includes(`content="default-src 'none'; style-src https://ext.vscode-cdn.net 'nonce-abc+/='; script-src 'nonce-abc+/='`));
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    assert.match(scripts[0]![0], /^<script nonce="abc\+\/=" src="https:\/\/ext\/p\.js">/);
    assert.equal(scripts[0]![1], '', 'no inline script');
    assert.ok(!/\sstyle=|<style/.test(html), 'no inline style');
    assert.ok(!/unsafe-(inline|eval)/.test(html));
  });

  it('media/panel.js uses no HTML sink (innerHTML, outerHTML, insertAdjacentHTML, document.write, eval)', () => {
    const src = fs
      .readFileSync(path.join(__dirname, '../../../media/panel.js'), 'utf8')
      .replace(/^\s*\/\/.*$/gm, '')
      .replace(/\/\*[\s\S]*?\*\//g, '');
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', 'srcdoc'])
      assert.ok(!src.includes(sink), `${sink} in media/panel.js`);
    assert.ok(src.includes('textContent') || src.includes('createTextNode'));
  });
});
