// Real VS Code: the OpenAI-compatible provider (vendor `rawr-openai`, src/host/lm/openaiProvider.ts)
// against the scripted model server started inside the extension host (loopback), configured through
// workspace settings. Covers: the models VS Code sees, streamed text + tool calls, tool results reaching
// the server as role:'tool' messages, tool mode, token counts, the key command, and the Chat view
// resolving the model for @rawr.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { poll, info, bridge, hasBridge, sleep } = require('./index');

const EXT_ID = 'rawr.rawr';
const VENDOR = 'rawr-openai';
const MODEL_ID = 'scripted-e2e';
/** Played by the same server with a tokenizer twice as dense as rawr's chars/4 estimate (CJK text, dense JSON). */
const DENSE_ID = 'dense-tokenizer';
const REPO_ROOT = path.resolve(__dirname, '../../..');
const LOOKUP_TOOL = {
  name: 'rawr_test_lookup',
  description: 'Look something up (test tool).',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

// out/ is built by `npx tsc -p .` (the harness requires a build of package.json `main` anyway).
const scripted = require(path.join(REPO_ROOT, 'out/test/support/scriptedModel.js'));

async function drain(response) {
  const parts = [];
  for await (const p of response.stream) parts.push(p);
  return parts;
}
const textOf = (parts) =>
  parts
    .filter((p) => p instanceof vscode.LanguageModelTextPart)
    .map((p) => p.value)
    .join('');

describe('openai-compatible provider (rawr-openai)', function () {
  this.timeout(60000);
  let server;
  let ext;
  let fallback; // our own registration when the extension does not register the provider itself
  let settingsFile;
  let settingsBefore; // undefined: the file did not exist
  let vscodeDirExisted;
  let model;

  before(async () => {
    server = await scripted.startScriptedModel(
      {
        rules: [
          {
            name: 'chat-view',
            when: (r) => JSON.stringify(r.messages).includes('e2e via the chat view'),
            reply: { text: 'Hello from the scripted model via the Chat view.' },
          },
          {
            name: 'tool-result',
            when: (r) => r.messages.length > 0 && r.messages[r.messages.length - 1].role === 'tool',
            reply: (r) => ({ text: `got tool result: ${r.messages[r.messages.length - 1].content}` }),
          },
          {
            name: 'use-tool',
            when: (r) => scripted.hasTool(r, LOOKUP_TOOL.name),
            reply: { text: 'Looking it up.', toolCalls: [{ name: LOOKUP_TOOL.name, arguments: { query: 'weather in Paris' } }], argChunks: 4 },
          },
        ],
        fallback: { text: 'hello from the scripted model' },
      },
      { tokenizer: (text, m) => Math.ceil(text.length / (m === DENSE_ID ? 2 : 4)) },
    );
    info().openaiScriptedUrl = server.url;

    ext = vscode.extensions.getExtension(EXT_ID);
    assert.ok(ext, `${EXT_ID} is not loaded`);
    let activationError;
    try {
      await ext.activate();
    } catch (e) {
      activationError = e;
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const mainText = fs.readFileSync(path.join(REPO_ROOT, pkg.main), 'utf8');
    const wired = ext.isActive && !activationError && /registerOpenAIProvider/.test(mainText);
    info().openaiProviderRegisteredBy = wired
      ? 'extension activate()'
      : `this suite (activate ${activationError ? `failed: ${activationError.message}` : 'does not call registerOpenAIProvider'})`;
    if (!wired) {
      // Register it the way activate() will, with an in-memory SecretStorage.
      const { registerOpenAIProvider } = require(path.join(REPO_ROOT, 'out/src/host/lm/openaiProvider.js'));
      const secrets = new Map();
      const changed = new vscode.EventEmitter();
      const context = {
        subscriptions: [],
        secrets: {
          get: async (k) => secrets.get(k),
          store: async (k, v) => {
            secrets.set(k, v);
            changed.fire({ key: k });
          },
          delete: async (k) => {
            secrets.delete(k);
            changed.fire({ key: k });
          },
          keys: async () => [...secrets.keys()],
          onDidChange: changed.event,
        },
      };
      const log = vscode.window.createOutputChannel('Rawr (openai provider test)', { log: true });
      fallback = vscode.Disposable.from(registerOpenAIProvider(context, log), log, changed);
    }

    // Workspace settings (restored in after(); the workspace is a git repo other suites expect clean).
    const ws = vscode.workspace.workspaceFolders[0].uri.fsPath;
    vscodeDirExisted = fs.existsSync(path.join(ws, '.vscode'));
    settingsFile = path.join(ws, '.vscode', 'settings.json');
    settingsBefore = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : undefined;
    const cfg = vscode.workspace.getConfiguration('rawr.openai');
    await cfg.update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    await cfg.update(
      'models',
      [
        { id: MODEL_ID, name: 'Scripted E2E', contextWindow: 32768, maxOutputTokens: 1024 },
        { id: 'broken-entry', name: 'no context window' }, // invalid: skipped with a log line, not a crash
      ],
      vscode.ConfigurationTarget.Workspace,
    );
  });

  after(async () => {
    const cfg = vscode.workspace.getConfiguration('rawr.openai');
    await cfg.update('baseUrl', undefined, vscode.ConfigurationTarget.Workspace).then(undefined, () => undefined);
    await cfg.update('models', undefined, vscode.ConfigurationTarget.Workspace).then(undefined, () => undefined);
    try {
      if (settingsBefore !== undefined) fs.writeFileSync(settingsFile, settingsBefore);
      else if (fs.existsSync(settingsFile) && !vscodeDirExisted) fs.rmSync(path.dirname(settingsFile), { recursive: true, force: true });
    } catch {
      /* best effort */
    }
    if (fallback) fallback.dispose();
    if (server) await server.close();
  });

  // Each test gets the model itself, so `--grep` can run any one of them alone.
  async function vendorModels() {
    return poll(
      async () => {
        const ms = await vscode.lm.selectChatModels({ vendor: VENDOR });
        return ms.some((m) => m.id === MODEL_ID) ? ms : undefined;
      },
      20000,
      `${VENDOR}/${MODEL_ID} in vscode.lm.selectChatModels`,
    );
  }
  beforeEach(async () => {
    if (!model) model = (await vendorModels()).find((m) => m.id === MODEL_ID);
  });

  it('selectChatModels({vendor}) returns the configured model with its context window as maxInputTokens', async () => {
    const models = await vendorModels();
    model = models.find((m) => m.id === MODEL_ID);
    info().openaiModel = {
      id: model.id,
      name: model.name,
      vendor: model.vendor,
      family: model.family,
      version: model.version,
      maxInputTokens: model.maxInputTokens,
    };
    assert.strictEqual(model.vendor, VENDOR);
    assert.strictEqual(model.name, 'Scripted E2E');
    assert.strictEqual(model.maxInputTokens, 32768);
    assert.deepStrictEqual(
      models.map((m) => m.id),
      [MODEL_ID],
      'the invalid entry is skipped',
    );
  });

  it('sendRequest with a tool streams text and a LanguageModelToolCallPart', async () => {
    assert.ok(model, 'no model');
    const n = server.requests.length;
    const res = await model.sendRequest([vscode.LanguageModelChatMessage.User('What is the weather?')], { tools: [LOOKUP_TOOL] });
    const parts = await drain(res);
    assert.strictEqual(textOf(parts), 'Looking it up.');
    const calls = parts.filter((p) => p instanceof vscode.LanguageModelToolCallPart);
    assert.strictEqual(calls.length, 1, `one tool call, got parts ${JSON.stringify(parts)}`);
    assert.strictEqual(calls[0].name, LOOKUP_TOOL.name);
    assert.deepStrictEqual(calls[0].input, { query: 'weather in Paris' });
    assert.ok(calls[0].callId, 'callId');
    const rec = server.requests[n];
    assert.ok(rec, 'the server got the request');
    assert.strictEqual(rec.model, MODEL_ID);
    assert.strictEqual(rec.stream, true);
    assert.strictEqual(rec.body.max_tokens, 1024);
    assert.deepStrictEqual(rec.tools, [
      { type: 'function', function: { name: LOOKUP_TOOL.name, description: LOOKUP_TOOL.description, parameters: LOOKUP_TOOL.inputSchema } },
    ]);
    assert.deepStrictEqual(rec.messages, [{ role: 'user', content: 'What is the weather?' }]);
    assert.strictEqual(rec.headers.authorization, 'Bearer not-needed', 'no stored key: the placeholder');
  });

  it('a follow-up with the tool result reaches the server as a role:"tool" message after the assistant tool_calls', async () => {
    const n = server.requests.length;
    const call = new vscode.LanguageModelToolCallPart('call_e2e_1', LOOKUP_TOOL.name, { query: 'weather in Paris' });
    const res = await model.sendRequest(
      [
        vscode.LanguageModelChatMessage.User('What is the weather?'),
        vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelTextPart('Looking it up.'), call]),
        vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('call_e2e_1', [new vscode.LanguageModelTextPart('sunny, 24°C')])]),
      ],
      { tools: [LOOKUP_TOOL], toolMode: vscode.LanguageModelChatToolMode.Auto },
    );
    assert.strictEqual(textOf(await drain(res)), 'got tool result: sunny, 24°C');
    const rec = server.requests[n];
    assert.deepStrictEqual(rec.messages, [
      { role: 'user', content: 'What is the weather?' },
      {
        role: 'assistant',
        content: 'Looking it up.',
        tool_calls: [{ id: 'call_e2e_1', type: 'function', function: { name: LOOKUP_TOOL.name, arguments: '{"query":"weather in Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_e2e_1', content: 'sunny, 24°C' },
    ]);
    assert.strictEqual(rec.body.tool_choice, undefined, 'Auto mode: the server default');
  });

  it('toolMode Required is sent as tool_choice "required"', async () => {
    const n = server.requests.length;
    const res = await model.sendRequest([vscode.LanguageModelChatMessage.User('Use the tool.')], {
      tools: [LOOKUP_TOOL],
      toolMode: vscode.LanguageModelChatToolMode.Required,
    });
    await drain(res);
    assert.strictEqual(server.requests[n].body.tool_choice, 'required');
  });

  it('LanguageModelDataPart: text/JSON data is sent as text, binary data (an image) is skipped', async function () {
    const DataPart = /** @type {any} */ (vscode).LanguageModelDataPart; // newer than the @types/vscode the extension targets
    if (typeof DataPart !== 'function') {
      info().openaiDataPartSkipped = 'vscode.LanguageModelDataPart does not exist in this VS Code';
      this.skip();
    }
    // a valid 1×1 PNG: the workbench decodes images (invalid bytes make sendRequest throw a DOM error event)
    const png = new Uint8Array(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'));
    const n = server.requests.length;
    const res = await model.sendRequest(
      [
        vscode.LanguageModelChatMessage.User([
          new vscode.LanguageModelTextPart('look: '),
          new DataPart(png, 'image/png'),
          new DataPart(new TextEncoder().encode('{"k":1}'), 'application/json'),
          new DataPart(new TextEncoder().encode(' and plain'), 'text/plain'),
        ]),
      ],
      {},
    );
    await drain(res);
    assert.deepStrictEqual(server.requests[n].messages, [{ role: 'user', content: 'look: {"k":1} and plain' }]);
  });

  it('countTokens is positive for text and for messages', async () => {
    const t = await model.countTokens('hello world, this is a token count');
    assert.ok(t > 0, `countTokens(text) = ${t}`);
    const m = await model.countTokens(vscode.LanguageModelChatMessage.User('hello world, this is a token count'));
    assert.ok(m >= t, `countTokens(message) = ${m} ≥ ${t}`);
    info().openaiTokenCounts = { text: t, message: m };
  });

  it("token counts follow the server's own count once it has reported one (calibration from usage)", async () => {
    const cfg = vscode.workspace.getConfiguration('rawr.openai');
    const models = cfg.get('models');
    await cfg.update('models', [...models, { id: DENSE_ID, name: 'Dense tokenizer', contextWindow: 32768 }], vscode.ConfigurationTarget.Workspace);
    try {
      const dense = await poll(async () => (await vscode.lm.selectChatModels({ vendor: VENDOR, id: DENSE_ID }))[0], 20000, `${VENDOR}/${DENSE_ID}`);
      const text = 'Explain the token bucket algorithm in detail, with its edge cases. '.repeat(80);
      const before = await dense.countTokens(text);
      const other = await model.countTokens(text);
      assert.strictEqual(before, other, 'before any response both models are estimated alike (chars / 4)');
      const n = server.requests.length;
      await drain(await dense.sendRequest([vscode.LanguageModelChatMessage.User(text)], {}));
      const rec = server.requests[n];
      assert.deepStrictEqual(rec.body.stream_options, { include_usage: true }, 'the provider asks for usage');
      const after = await dense.countTokens(text);
      const ratio = after / before;
      assert.ok(ratio > 1.85 && ratio < 2.15, `countTokens went ${before} → ${after} (×${ratio.toFixed(2)}); the server counts twice the estimate`);
      // The request as a whole: rawr's count of its message now agrees with what the server counted.
      const counted = await dense.countTokens(vscode.LanguageModelChatMessage.User(text));
      assert.ok(Math.abs(counted - rec.promptTokens) / rec.promptTokens < 0.05, `counted ${counted} vs the server's ${rec.promptTokens}`);
      assert.strictEqual(await model.countTokens(text), other, 'another model keeps its own factor');
      info().openaiCalibration = { before, after, counted, serverPromptTokens: rec.promptTokens };
    } finally {
      await cfg.update('models', models, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('an HTTP error from the server surfaces with the server message', async () => {
    server.setScript([{ name: 'boom', when: () => true, reply: { status: 500, error: 'scripted backend failure XYZ' } }]);
    let err;
    try {
      // depending on the VS Code version the error rejects sendRequest itself or the stream
      const res = await model.sendRequest([vscode.LanguageModelChatMessage.User('fail please')], {});
      await drain(res);
    } catch (e) {
      err = e;
    } finally {
      server.setScript({ rules: [], fallback: { text: 'hello from the scripted model' } });
    }
    assert.ok(err, 'expected the request to fail');
    info().openaiHttpError = { name: err.name, code: err.code, message: err.message };
    assert.match(String(err.message), /scripted backend failure XYZ/);
  });

  it('the Chat view resolves the model for @rawr (workbench.action.chat.open with modelSelector)', async () => {
    const declared = ((ext.packageJSON.contributes || {}).chatParticipants || []).some((p) => p.id === EXT_ID);
    assert.ok(declared, 'the @rawr participant is declared in package.json');
    assert.ok(ext.isActive, 'the extension is active');
    server.setScript({ rules: [], fallback: { text: 'Hello from the scripted model via the Chat view.' } });
    const n = server.requests.length;
    /** @type {vscode.ChatResult | undefined} */
    let res;
    try {
      res = await vscode.commands.executeCommand('workbench.action.chat.open', {
        query: '@rawr e2e via the chat view',
        modelSelector: { vendor: VENDOR, id: MODEL_ID },
        blockOnResponse: true,
      });
    } catch (e) {
      assert.doesNotMatch(String(e && e.message), /Language model unavailable/i);
      throw e;
    }
    info().openaiChatOpenResult = res;
    const err = res && res.errorDetails && res.errorDetails.message;
    assert.ok(!err || !/Language model unavailable/i.test(err), `chat failed: ${err}`);
    await poll(() => server.requests.length > n, 15000, 'a request from the @rawr turn at the scripted server');
    assert.strictEqual(server.requests[n].model, MODEL_ID);
    if (hasBridge()) {
      const txt = await poll(
        async () =>
          (await bridge('text', { selector: '.interactive-item-container.interactive-response' })).find((t) => /scripted model via the Chat view/.test(t)),
        15000,
        'the rendered response',
      );
      info().openaiChatViewRendered = !!txt;
      await bridge('screenshot', { name: 'openai-provider-chat' }).catch(() => undefined);
    }
  });

  it('rawr.setOpenAIKey stores the key in SecretStorage; a workspace base URL does not receive it, a user one does', async function () {
    if (!hasBridge()) this.skip(); // needs to type into the input box
    const all = await vscode.commands.getCommands(true);
    assert.ok(all.includes('rawr.setOpenAIKey'), 'command registered');
    const KEY = 'sk-e2e-secret-123';
    const cfg = () => vscode.workspace.getConfiguration('rawr.openai');
    const authOfNext = async () => {
      const n = server.requests.length;
      await drain(await model.sendRequest([vscode.LanguageModelChatMessage.User('auth?')], {}));
      return server.requests[n].headers.authorization;
    };
    const typeKey = async (text) => {
      const done = vscode.commands.executeCommand('rawr.setOpenAIKey');
      await poll(
        async () => (await bridge('text', { selector: '.quick-input-widget' })).some((t) => /OpenAI-compatible API key/.test(t)),
        10000,
        'the key input box',
      );
      await sleep(200);
      if (text) await bridge('type', { text });
      await bridge('press', { key: 'Enter' });
      await done;
    };
    try {
      await typeKey(KEY);
      await sleep(500); // secret change → provider reload
      assert.strictEqual(await authOfNext(), 'Bearer not-needed', 'the base URL comes from workspace settings: the key is withheld');
      // the same URL in user settings, none in the workspace: the key is sent
      await cfg().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
      await cfg().update('baseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      await poll(async () => (await authOfNext()) === `Bearer ${KEY}`, 10000, 'the stored key in the Authorization header');
      await typeKey(''); // empty input deletes the key
      await poll(async () => (await authOfNext()) === 'Bearer not-needed', 10000, 'the placeholder after deleting the key');
    } finally {
      await cfg().update('baseUrl', server.url, vscode.ConfigurationTarget.Workspace);
      await cfg().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  // Last in the suite: the provider then stops asking this server for usage.
  it('a server that rejects stream_options (older Azure OpenAI API versions) is asked again without it, and not asked again', async () => {
    server.setScript({
      rules: [
        {
          name: 'reject-stream-options',
          when: (r) => r.body.stream_options !== undefined,
          reply: { status: 400, error: { message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error', code: null } },
        },
      ],
      fallback: { text: 'answered without usage' },
    });
    try {
      const n = server.requests.length;
      assert.strictEqual(textOf(await drain(await model.sendRequest([vscode.LanguageModelChatMessage.User('first')], {}))), 'answered without usage');
      assert.deepStrictEqual(
        server.requests.slice(n).map((r) => r.rule),
        ['reject-stream-options', 'fallback'],
      );
      assert.strictEqual(textOf(await drain(await model.sendRequest([vscode.LanguageModelChatMessage.User('second')], {}))), 'answered without usage');
      assert.deepStrictEqual(
        server.requests.slice(n).map((r) => r.rule),
        ['reject-stream-options', 'fallback', 'fallback'],
        'the second request goes without stream_options at once',
      );
    } finally {
      server.setScript({ rules: [], fallback: { text: 'hello from the scripted model' } });
    }
  });
});
