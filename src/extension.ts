/**
 * rawr's extension host: wires the @rawr participant (agent loop + golden-path executor), the boundary
 * sources (git, terminal), the core process (the single arbiter), the OpenAI-compatible model provider,
 * the status bar and the commands. Decisions are the core's; everything here executes them.
 */
import * as vscode from 'vscode';
import { BoundaryBus } from './host/boundaryBus';
import { registerCommands } from './host/commands';
import { registerHookInstallCommands } from './host/hooks/installCommands';
import type { CoreApi } from './core/protocol/coreProtocol';
import { startCore } from './host/core/coreClient';
import { registerOpenAIProvider } from './host/lm/openaiProvider';
import { TokenCounter } from './host/participant/lmMessages';
import { registerFollow } from './host/panel/follow';
import { registerPanel } from './host/panel/panel';
import { Participant, PARTICIPANT_ID } from './host/participant/participant';
import type { Problem } from './core/prompts/frontmatter';
import { loadSettings, onSettingsChanged, RESTRICTED_PROMPTS_MESSAGE } from './host/settings';
import { watchGit } from './host/signals/gitSource';
import { watchTerminals } from './host/signals/terminalSource';
import { registerRawrTools } from './host/tools/registerTools';
import { setRestrictedModeForTests } from './host/trust';
import { RawrStatusBar } from './host/ui/statusBar';

export interface RawrApi {
  core: CoreApi;
  bus: BoundaryBus;
  participant: Participant;
  statusBar: RawrStatusBar;
  log: vscode.LogOutputChannel;
  /** How long activate() took, in ms (logged; the real-VS-Code tier reports it). */
  activationMs: number;
  /** For the real-VS-Code tests (their host runs with workspace trust disabled). */
  testing: { setRestrictedMode: (restricted: boolean | undefined) => void };
}

/** workspaceState key: the thread of the last @rawr request in this workspace. */
const ACTIVE_THREAD_KEY = 'rawr.activeThread';

/**
 * Context key: this window has an @rawr thread. The thread-only commands (Compact Now, Undo Last Compaction,
 * Show Status: package.json `menus.commandPalette`) are listed in the command palette only then.
 */
const HAS_THREAD_KEY = 'rawr.hasThread';
const markThread = () => void vscode.commands.executeCommand('setContext', HAS_THREAD_KEY, true);

/**
 * Activation (package.json `activationEvents`, docs/ARCHITECTURE.md#activation): after startup
 * (onStartupFinished) as well as on use (the participant, a command, the panel restored, rawr's models,
 * prompt overrides). On use alone is too late for the first message of a window: VS Code 1.139 resolves a
 * chat request's model before it activates the participant, and rawr's models only exist once rawr is
 * active — so the first `@rawr …` of every fresh window failed with "Language model unavailable"
 * (issue 18). Startup activation happens after the window is restored, off its critical path; and the
 * model provider is registered first thing, before anything here awaits.
 */
export async function activate(context: vscode.ExtensionContext): Promise<RawrApi> {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Rawr', { log: true });
  context.subscriptions.push(log);
  // rawr's OpenAI-compatible models, before anything is awaited: the Chat view's model picker and the
  // first request look them up as soon as rawr is active. The token counter asks it when a model's
  // counts were recalibrated.
  const openai = registerOpenAIProvider(context, log);
  context.subscriptions.push(openai);

  const workspace = () => vscode.workspace.workspaceFolders?.[0]?.uri;
  let loaded = await loadSettings(workspace(), context.extensionPath);
  for (const p of loaded.problems) log.warn(`${p.file}:${p.line}:${p.column}: ${p.message}`);
  explainRestrictedMode(loaded.problems);

  const bus = new BoundaryBus();
  context.subscriptions.push(bus, watchGit(bus, log), watchTerminals(bus, log));

  // Thread logs live in the workspace's storage (or the global one without a folder): per workspace,
  // out of the user's files.
  const storage = context.storageUri ?? context.globalStorageUri;
  const logDir = vscode.Uri.joinPath(storage, 'threads').fsPath;
  // An untrusted workspace's prompt overrides are not read (Restricted Mode), by the core process either.
  const promptDirs = [
    ...(workspace() && vscode.workspace.isTrusted ? [vscode.Uri.joinPath(workspace()!, '.rawr', 'prompts').fsPath] : []),
    context.asAbsolutePath('prompts'),
  ];
  const core = await startCore(context, { logDir, promptDirs, log });
  context.subscriptions.push(core);
  stopCore = () => core.dispose();
  await core.configure(loaded.set);

  // The agent's default tools (read, list, search, create, edit, git status/diff, terminal): docs/TOOLS.md.
  context.subscriptions.push(registerRawrTools(log));

  const statusBar = new RawrStatusBar(bus);
  context.subscriptions.push(statusBar);

  const participant = new Participant({
    core,
    bus,
    log,
    tokens: new TokenCounter({ epoch: (model) => openai.countEpoch(model), describe: (model) => openai.describeCounts(model) }),
    workspace,
    settings: () => loaded.set.settings,
    allowedTools: () => loaded.host.toolsAllowed,
    agentPrompt: () => loaded.set.prompts.agent,
    judgmentModel: async () => {
      const selector = loaded.host.judgmentModel;
      return selector ? (await vscode.lm.selectChatModels(selector))[0] : undefined;
    },
    onStatus: (view) => statusBar.update(view),
    onDecision: (_threadId, d) => statusBar.update({ ...statusBar.view, lastDecision: d }),
    onActiveThread: (threadId) => {
      void context.workspaceState.update(ACTIVE_THREAD_KEY, threadId);
      markThread();
    },
  });
  // After a window reload the status bar shows the thread of the last request again, not a blank "rawr".
  const lastActive = context.workspaceState.get<unknown>(ACTIVE_THREAD_KEY);
  if (typeof lastActive === 'string') {
    participant.restoreActive(lastActive).then(
      (restored) => {
        if (!restored) return;
        markThread();
        log.info(`active thread ${lastActive} restored from the last session`);
      },
      (err: unknown) => log.warn(`could not restore the active thread ${lastActive}: ${(err as Error)?.message ?? err}`),
    );
  }
  context.subscriptions.push(participant);
  const chat = vscode.chat.createChatParticipant(PARTICIPANT_ID, participant.handler);
  chat.iconPath = new vscode.ThemeIcon('fold');
  context.subscriptions.push(chat);

  const reload = async (why: string) => {
    loaded = await loadSettings(workspace(), context.extensionPath);
    for (const p of loaded.problems) log.warn(`${p.file}:${p.line}:${p.column}: ${p.message}`);
    await core.configure(loaded.set);
    log.info(`settings reloaded (${why})`);
  };
  context.subscriptions.push(
    onSettingsChanged(workspace(), () => reload('changed')),
    // Trusting the workspace brings its prompt overrides in without a reload.
    vscode.workspace.onDidGrantWorkspaceTrust(() => reload('workspace trusted')),
  );

  registerCommands(context, { core: () => core, participant, log, logDir });
  registerHookInstallCommands(context, log);
  // The compaction panel: the rawr.openPanel command and the serializer that restores it after a reload.
  // Live follow of an external agent's session (Claude Code, Codex), shown in the panel.
  const follow = registerFollow(context, { log, workspace, config: () => ({ settings: loaded.set.settings, prompts: loaded.set.prompts }) });
  registerPanel(context, { core, participant, bus, log, logDir, follow });

  const activationMs = Math.round(performance.now() - started);
  log.info(`rawr activated in ${activationMs} ms`);
  return { core, bus, participant, statusBar, log, activationMs, testing: { setRestrictedMode: setRestrictedModeForTests } };
}

/** Restricted Mode ignored the workspace's prompt overrides: say so once, where the user looks. */
function explainRestrictedMode(problems: readonly Problem[]): void {
  if (!problems.some((p) => p.message === RESTRICTED_PROMPTS_MESSAGE)) return;
  void vscode.window.showInformationMessage(`Rawr: ${RESTRICTED_PROMPTS_MESSAGE}`);
}

/** Set by activate(): stops the core process (shutdown + exit, awaited, so a window reload leaves none behind). */
let stopCore: (() => unknown) | undefined;

export async function deactivate(): Promise<void> {
  // Subscriptions are disposed after this without being awaited; the core's stop is a request/response
  // exchange, so it is awaited here, where VS Code gives deactivate() time to finish.
  await stopCore?.();
  stopCore = undefined;
}
