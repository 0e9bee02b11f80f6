/**
 * The compaction panel (`rawr.openPanel`, "Rawr: Open Compaction Panel"): a webview that shows why rawr
 * did or did not compact — the context gauge with the four tier thresholds, boundaries as they arrive,
 * the decision timeline with judgment verdicts, the running sequence (with Cancel), past compactions with
 * their packets (and Undo for the latest) — and offers Compact now, mode, settings and log export.
 *
 * Built to be safe and native:
 * - only media/ is a local resource root; a strict CSP with a per-render nonce; scripts enabled for
 *   media/panel.js only;
 * - messages both ways are validated with zod (messages.ts): a bad message from the webview is logged
 *   and ignored, and view models are checked before they are posted;
 * - retainContextWhenHidden is off (a hidden panel costs nothing): the webview keeps its UI state and the
 *   last view model with setState and redraws from them when shown again, then asks for fresh data;
 * - a WebviewPanelSerializer for `rawr.panel` restores the panel, with its thread pick, after a window
 *   reload (activation event `onWebviewPanel:rawr.panel`).
 *
 * Live updates: the participant's session activity (every arbiter step, swap and undo), the boundary bus
 * and settings changes schedule a refresh (coalesced), which re-reads the core snapshot and the new lines
 * of the thread's event log and posts a new view model (viewModel.ts).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { BoundaryBus } from '../boundaryBus';
import type { CoreApi } from '../../core/protocol/coreProtocol';
import type { Participant } from '../participant/participant';
import type { ThreadSnapshot } from '../../core/protocol/coreProtocol';
import { OPEN_PANEL_COMMAND } from '../ui/statusBar';
import { panelHtml } from './html';
import { ThreadJournals } from './journals';
import { HostMessageSchema, parsePanelState, parseWebviewMessage, type HostMessage, type PanelState, type WebviewMessage } from './messages';
import { buildViewModel, type ThreadJournal } from './viewModel';
import type { FollowController } from './follow';

export const PANEL_VIEW_TYPE = 'rawr.panel';
const TITLE = 'Rawr: Compaction';

export interface PanelDeps {
  core: CoreApi;
  participant: Participant;
  bus: BoundaryBus;
  log: vscode.LogOutputChannel;
  /** Where the core writes the thread logs (`<logDir>/<threadId>.jsonl`). */
  logDir: string;
  /** Live follow of an external agent's session (follow.ts): its own section of the panel. */
  follow?: FollowController;
}

/** Registers the command and the serializer; the returned manager owns the (single) panel. */
export function registerPanel(context: vscode.ExtensionContext, deps: PanelDeps): PanelManager {
  const manager = new PanelManager(context.extensionUri, deps);
  context.subscriptions.push(
    manager,
    vscode.commands.registerCommand(OPEN_PANEL_COMMAND, () => manager.open()),
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state) => manager.restore(panel, state),
    }),
  );
  return manager;
}

export class PanelManager implements vscode.Disposable {
  private current: RawrPanel | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly deps: PanelDeps,
  ) {}

  /** The open panel, if any (tests and the status bar). */
  get panel(): RawrPanel | undefined {
    return this.current;
  }

  open(): RawrPanel {
    if (this.current) {
      this.current.panel.reveal();
      return this.current;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, TITLE, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, this.options());
    return this.adopt(panel, { threadId: null, showNoise: false });
  }

  restore(panel: vscode.WebviewPanel, rawState: unknown): void {
    // A second restored panel (two were open before a reload) is closed: one panel, one source of truth.
    if (this.current) return panel.dispose();
    panel.webview.options = this.options();
    this.adopt(panel, parsePanelState(rawState));
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
      retainContextWhenHidden: false,
      enableFindWidget: true,
    };
  }

  private adopt(panel: vscode.WebviewPanel, state: PanelState): RawrPanel {
    const p = new RawrPanel(panel, this.extensionUri, this.deps, state);
    this.current = p;
    panel.onDidDispose(() => {
      if (this.current === p) this.current = undefined;
      p.dispose();
    });
    return p;
  }

  dispose(): void {
    this.current?.panel.dispose();
  }
}

export class RawrPanel implements vscode.Disposable {
  private readonly subs: vscode.Disposable[] = [];
  /** The explicitly picked thread; null follows the thread of the latest @rawr request. */
  private picked: string | null;
  private readonly journals: ThreadJournals;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private disposed = false;
  /** Set when an update arrived while hidden: refresh when shown. */
  private stale = false;
  /** The last view model posted (tests read it; the webview has its own copy). */
  lastPosted: HostMessage | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly deps: PanelDeps,
    state: PanelState,
  ) {
    this.picked = state.threadId;
    this.journals = new ThreadJournals(deps.logDir);
    panel.title = TITLE;
    panel.webview.html = this.html();
    this.subs.push(
      panel.webview.onDidReceiveMessage((raw) => this.onMessage(raw)),
      panel.onDidChangeViewState(() => {
        if (panel.visible && this.stale) this.schedule(0);
      }),
      deps.participant.onActivity((a) => {
        // Boundaries show at once; the many steps of a running agent loop are coalesced.
        if (this.picked === null || a.threadId === this.picked) this.schedule(a.kind === 'step' && a.events.some((e) => e.type === 'boundary') ? 0 : 250);
      }),
      deps.bus.onBoundary(() => this.schedule(100)),
      ...(deps.follow ? [deps.follow.onDidChange((view) => void this.post({ type: 'follow', view }))] : []),
      vscode.workspace.onDidChangeConfiguration((e) => {
        // The core is reconfigured asynchronously after a settings change: look twice.
        if (e.affectsConfiguration('rawr')) {
          this.schedule(300);
          setTimeout(() => this.schedule(0), 1500).unref?.();
        }
      }),
    );
  }

  /** The thread shown: the pick, else the latest @rawr request's, else the newest with a log. */
  private shownThread(threads: readonly string[]): string | null {
    if (this.picked) return this.picked;
    return this.deps.participant.activeThreadId ?? [...threads].sort().at(-1) ?? null;
  }

  /** Coalesces refreshes: at most one in flight, one more queued. */
  schedule(delayMs = 100): void {
    if (this.disposed) return;
    if (!this.panel.visible) {
      this.stale = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) {
        this.again = true;
        return;
      }
      this.running = this.refresh()
        .catch((err) => this.deps.log.warn(`panel: refresh failed: ${(err as Error).message ?? err}`))
        .finally(() => {
          this.running = undefined;
          if (this.again) {
            this.again = false;
            this.schedule(0);
          }
        });
    }, delayMs);
  }

  /** Builds the view model now and posts it (also used by tests through the manager). */
  async refresh(): Promise<void> {
    if (this.disposed) return;
    this.stale = false;
    const { core, participant, bus } = this.deps;
    const threads = await core.listThreads();
    const threadId = this.shownThread(threads);
    let snapshot: ThreadSnapshot | null = null;
    let journal: ThreadJournal | null = null;
    if (threadId && (threads.includes(threadId) || threadId === participant.activeThreadId)) {
      snapshot = await core.snapshot(threadId);
      journal = await this.journals.journalFor(threadId);
    }
    const vm = buildViewModel({
      threadId,
      threads,
      activeThreadId: participant.activeThreadId,
      followActive: this.picked === null,
      snapshot,
      journal,
      busRecent: bus.recent,
      live: !!threadId && participant.isOpen(threadId),
      now: Date.now(),
    });
    await this.post({ type: 'state', vm });
  }

  private async post(msg: HostMessage): Promise<void> {
    const checked = HostMessageSchema.safeParse(msg);
    if (!checked.success) {
      const first = checked.error.issues[0];
      this.deps.log.error(`panel: refusing to post an invalid ${msg.type} message (${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'})`);
      return;
    }
    this.lastPosted = checked.data;
    await this.panel.webview.postMessage(checked.data);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.deps.log.warn(`panel: ignored an invalid message from the webview (${parsed.error})`);
      return;
    }
    try {
      await this.handle(parsed.msg);
    } catch (err) {
      this.deps.log.error(`panel: ${parsed.msg.type} failed: ${(err as Error).message ?? err}`);
      await this.post({ type: 'notice', level: 'error', text: `${parsed.msg.type} failed: ${String((err as Error).message ?? err).slice(0, 900)}` });
    }
  }

  /** One validated action from the webview. */
  async handle(msg: WebviewMessage): Promise<void> {
    const { participant, core } = this.deps;
    switch (msg.type) {
      case 'ready':
      case 'refresh':
        if (this.deps.follow) await this.post({ type: 'follow', view: this.deps.follow.view });
        return this.schedule(0);
      case 'followPick':
      case 'followStop':
      case 'followCopy':
        return this.deps.follow?.handle(msg);
      case 'selectThread':
        this.picked = msg.threadId;
        return this.schedule(0);
      case 'compactNow':
        await vscode.commands.executeCommand('rawr.compactNow', { instructions: msg.instructions.trim() });
        return;
      case 'setMode': {
        const cfg = vscode.workspace.getConfiguration('rawr');
        const where = cfg.inspect('mode');
        const target =
          where?.workspaceFolderValue !== undefined || where?.workspaceValue !== undefined
            ? vscode.ConfigurationTarget.Workspace
            : vscode.ConfigurationTarget.Global;
        await cfg.update('mode', msg.mode, target);
        this.deps.log.info(`panel: mode set to ${msg.mode} (${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'} settings)`);
        return;
      }
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', 'rawr.');
        return;
      case 'exportLog':
        await vscode.commands.executeCommand('rawr.exportDecisionLog', msg.threadId);
        return;
      case 'cancelSequence': {
        if (!(await core.listThreads()).includes(msg.threadId) && !participant.isOpen(msg.threadId)) return;
        const session = await participant.session(msg.threadId);
        const was = await session.cancel();
        this.deps.log.info(`panel: cancel for ${msg.threadId}: ${was ? 'sequence cancelled' : 'nothing was running'}`);
        this.schedule(0);
        return;
      }
      case 'undo': {
        const snap = await core.snapshot(msg.threadId);
        if (snap.compactions.at(-1)?.seqId !== msg.seqId || snap.state.seq.phase !== 'idle') {
          await this.post({
            type: 'notice',
            level: 'info',
            text: `Compaction ${msg.seqId} is not the latest undoable one any more (or a sequence is running).`,
          });
          return this.schedule(0);
        }
        const ok = await vscode.window.showWarningMessage(
          `Undo compaction ${msg.seqId}? The thread goes back to the ${snap.compactions.at(-1)!.tokensBefore} tokens it had before it; the summary and packet are dropped.`,
          { modal: true },
          'Undo Compaction',
        );
        if (ok !== 'Undo Compaction') return;
        const session = await participant.session(msg.threadId);
        const seq = await session.undo();
        this.deps.log.info(`panel: undo for ${msg.threadId}: ${seq ?? 'nothing to undo'}`);
        this.schedule(0);
        return;
      }
      case 'openScratch': {
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        if (!folder) return;
        const uri = vscode.Uri.joinPath(folder, msg.path);
        try {
          await vscode.workspace.fs.stat(uri);
        } catch {
          await this.post({ type: 'notice', level: 'info', text: `${msg.path} does not exist (any more).` });
          return;
        }
        await vscode.window.showTextDocument(uri, { preview: true, viewColumn: vscode.ViewColumn.One });
        return;
      }
    }
  }

  private html(): string {
    const webview = this.panel.webview;
    const media = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', ...p)).toString();
    return panelHtml({
      cspSource: webview.cspSource,
      nonce: randomBytes(18).toString('base64'),
      codiconCss: media('codicons', 'codicon.css'),
      css: media('panel.css'),
      js: media('panel.js'),
      title: TITLE,
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.journals.clear();
  }
}
