/**
 * @rawr's participant in the unit tier: the real Participant, Session, Turn and effect executor over a
 * real in-process core (CoreService, event logs in a temp folder) and a real workspace folder, with the
 * `vscode` shim (test/support/vscode), a scripted language-model double and, when a test needs one, a
 * fake clock. Only the model and the clock are doubles. `ask` sends one chat request as the Chat view
 * would and records the response stream like vscode-copilot-chat's spy stream.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Settings } from '../../src/core/settings/schema';
import { BoundaryBus } from '../../src/host/boundaryBus';
import type { CoreApi } from '../../src/core/protocol/coreProtocol';
import { localCore } from '../../src/host/core/localCore';
import { TokenCounter } from '../../src/host/participant/lmMessages';
import { Participant, PARTICIPANT_ID, type RawrChatResult } from '../../src/host/participant/participant';
import type { SessionDeps, StatusView } from '../../src/host/participant/session';
import type { SessionCacheOptions } from '../../src/host/participant/sessionCache';
import { chatModelDouble, type ChatModelDouble, type ChatModelOptions } from './chatModel';
import { chatRequest, recordingStream, type RecordedPart } from './chatRequest';
import { shipped } from './engine';
import type { FakeClock } from './fakeClock';
import type { Script, ScriptRequest, ScriptRule } from './scriptedModel';

type CoreCacheOptions = Parameters<typeof localCore>[2];

export interface HarnessOptions {
  script: Script | ScriptRule[];
  window: number;
  settings?: Partial<Settings>;
  clock?: FakeClock;
  takesMs?: ChatModelOptions['takesMs'];
  /** How many threads the core and the window keep in memory, and for how long (threadCache.ts). */
  cache?: { core?: CoreCacheOptions; host?: SessionCacheOptions };
  /** The core the participant talks to instead of the in-process one (the bench's core in a child process). */
  coreApi?: CoreApi;
}

export interface Asked {
  result: RawrChatResult;
  text: string;
  parts: RecordedPart[];
  threadId: string;
}

export function participantHarness(opts: HarnessOptions) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rawr-participant-'));
  const logDir = path.join(root, 'threads');
  const workspaceDir = path.join(root, 'ws');
  fs.mkdirSync(workspaceDir, { recursive: true });
  const config = { ...shipped, settings: { ...shipped.settings, ...opts.settings } };
  const core = localCore(logDir, config, opts.cache?.core);
  const bus = new BoundaryBus();
  const statuses: StatusView[] = [];
  const log = vscode.window.createOutputChannel('Rawr (unit)', { log: true }) as unknown as vscode.LogOutputChannel & { lines: string[] };
  const deps: SessionDeps = {
    core: opts.coreApi ?? core,
    bus,
    log,
    tokens: new TokenCounter(),
    workspace: () => vscode.Uri.file(workspaceDir),
    allowedTools: () => [],
    judgmentModel: async () => undefined,
    onStatus: (v) => statuses.push(v),
    settings: () => config.settings,
    ...(opts.clock ? { clock: opts.clock } : {}),
  };
  let participant = new Participant(deps, opts.cache?.host);
  const model: ChatModelDouble = chatModelDouble(opts.script, {
    maxInputTokens: opts.window,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.takesMs ? { takesMs: opts.takesMs } : {}),
  });

  /** One chat request: `threadId` continues that thread (as the chat's history would), else a new chat. */
  async function ask(prompt: string, o: { command?: string; threadId?: string; token?: vscode.CancellationToken } = {}): Promise<Asked> {
    const rec = recordingStream();
    // The typings make ChatResponseTurn's constructor private (VS Code builds the history); the shim's is public.
    const Turn = vscode.ChatResponseTurn as unknown as new (response: unknown[], result: vscode.ChatResult, participant: string) => vscode.ChatResponseTurn;
    const history = o.threadId ? [new Turn([], { metadata: { rawrThreadId: o.threadId } }, PARTICIPANT_ID)] : [];
    const result = (await participant.handler(
      chatRequest(model as unknown as vscode.LanguageModelChat, prompt, o.command, 'unit'),
      { history } as unknown as vscode.ChatContext,
      rec.stream,
      o.token ?? new vscode.CancellationTokenSource().token,
    )) as RawrChatResult;
    return { result, text: rec.text(), parts: rec.parts, threadId: result.metadata.rawrThreadId };
  }

  /** The thread's event log, parsed. */
  function logRecords(threadId: string): Array<Record<string, any>> {
    const file = path.join(logDir, `${threadId}.jsonl`);
    return fs.existsSync(file)
      ? fs
          .readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  }

  /** A new window on the same workspace: a fresh Participant (no sessions in memory), the same core and logs. */
  function reopen(): Participant {
    participant.dispose();
    participant = new Participant(deps, opts.cache?.host);
    return participant;
  }

  function dispose(): void {
    participant.dispose();
    bus.dispose();
    core.service.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  }

  return {
    get participant() {
      return participant;
    },
    core,
    bus,
    model,
    statuses,
    log,
    workspaceDir,
    logDir,
    ask,
    logRecords,
    reopen,
    dispose,
  };
}

export type Harness = ReturnType<typeof participantHarness>;

/** Asserts the patterns occur in this order; returns their offsets. */
export function inOrder(text: string, patterns: RegExp[]): number[] {
  const at: number[] = [];
  let from = 0;
  for (const re of patterns) {
    const k = text.slice(from).search(re);
    if (k < 0) throw new Error(`expected ${re} after offset ${from} in:\n${text.slice(Math.max(0, from - 200), from + 2000)}`);
    from += k;
    at.push(from);
    from += 1;
  }
  return at;
}

/** A promise with its resolver, for gating a scripted reply until the test says so. */
export function gate<T = void>() {
  let open!: (v: T) => void;
  const p = new Promise<T>((r) => (open = r));
  return { p, open };
}

/** The script with its rule `name` answered by `reply` instead. */
export function replacing(script: Script, name: string, reply: (r: ScriptRequest) => unknown): Script {
  return { ...script, rules: script.rules.map((rule) => (rule.name === name ? { ...rule, reply: reply as never } : rule)) };
}

/** The script with its rule `name` held: `reached` opens when a request gets there; it answers as usual once `release` opens. */
export function heldAt(script: Script, name: string) {
  const reached = gate();
  const release = gate();
  const rule = script.rules.find((r) => r.name === name)!;
  const held = replacing(script, name, async (r) => {
    reached.open();
    await release.p;
    return typeof rule.reply === 'function' ? rule.reply(r) : rule.reply;
  });
  return { script: held, reached, release };
}
