/**
 * Live follow ("Rawr: Follow Agent Session…"): the panel follows an external agent's session in this
 * workspace — the newest Claude Code transcript of the folder, the newest Codex rollout started in it, or
 * a file the person picks — and shows what rawr's arbiter makes of it as it is written: the gauge, the
 * pending boundaries, the decisions ("rawr would compact here: commit 3f2a1c9, 31% left"), the tool's
 * own compactions and the hooks' snapshots / injections. A status-bar item shows the followed context;
 * in suggest mode the panel offers a ready `/compact <instructions>` to copy at a good boundary.
 *
 * Reading: a FileTail per session (bounded reads of what was appended, never the whole file again), fed
 * to a SessionFollower (core: the replay's importers and arbiter, incrementally), on a file-system watch
 * plus a slow poll (watch events are not guaranteed on every file system).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SessionFollower, type FollowState } from '../../core/follow/sessionFollower';
import type { Settings } from '../../core/settings/schema';
import type { Prompts } from '../../core/prompts/promptSet';
import { TIERS } from '../../core/settings/schema';
import { thresholdOf } from '../../core/arbiter/tiers';
import { detectFormat } from '../../core/replay/import/detect';
import {
  hookEvents,
  hookReceipts,
  newestClaudeTranscript,
  newestCodexRollout,
  readHead,
  sessionIdOf,
  steerLog,
  type AgentKind,
  type HookEvent,
  type Receipt,
  type SteerEntry,
} from '../follow/discover';
import { FileTail } from '../follow/tail';
import { OPEN_PANEL_COMMAND } from '../ui/statusBar';
import type { FollowAction, FollowView } from './followMessages';

export const FOLLOW_COMMAND = 'rawr.followSession';
const POLL_MS = 1000;

export interface FollowDeps {
  log: vscode.LogOutputChannel;
  /** The settings and prompts the core runs with (the follower runs the same arbiter). */
  config: () => { settings: Settings; prompts: Prompts };
  workspace: () => vscode.Uri | undefined;
}

interface Followed {
  path: string;
  agent: AgentKind;
  how: string;
  sessionId: string | null;
  tail: FileTail;
  follower: SessionFollower;
  hooks: HookEvent[];
  /** Claude Code: rawr's PreCompact answers (steer-log.jsonl), newest last. */
  steering: SteerEntry[];
  /** The hooks' receipts after each compaction (hook-log.jsonl), newest last. */
  receipts: Receipt[];
}

export class FollowController implements vscode.Disposable {
  private current: Followed | null = null;
  private readonly changed = new vscode.EventEmitter<FollowView | null>();
  readonly onDidChange = this.changed.event;
  private readonly item: vscode.StatusBarItem;
  private watches: vscode.Disposable[] = [];
  private poll: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private last: FollowView | null = null;

  constructor(private readonly deps: FollowDeps) {
    this.item = vscode.window.createStatusBarItem('rawr.follow', vscode.StatusBarAlignment.Right, 99);
    this.item.name = 'Rawr: followed agent session';
    this.item.command = OPEN_PANEL_COMMAND;
  }

  /** The view last built (null when nothing is followed). */
  get view(): FollowView | null {
    return this.last;
  }

  /** Asks what to follow, then follows it. Returns false when the person cancelled. */
  async pick(): Promise<boolean> {
    const folder = this.deps.workspace();
    type Item = vscode.QuickPickItem & { run: () => Promise<boolean> };
    const items: Item[] = [];
    if (folder?.scheme === 'file') {
      const claude = await newestClaudeTranscript(folder.fsPath);
      const codex = await newestCodexRollout(folder.fsPath);
      if (claude)
        items.push({
          label: '$(hubot) Newest Claude Code session for this folder',
          detail: claude.file,
          run: async () => {
            await this.follow(claude.file, 'claude', 'newest Claude Code transcript for this folder');
            return true;
          },
        });
      if (codex)
        items.push({
          label: '$(terminal) Newest Codex session for this folder',
          detail: codex.file,
          run: async () => {
            await this.follow(codex.file, 'codex', 'newest Codex rollout started in this folder');
            return true;
          },
        });
    }
    items.push({ label: '$(file) Choose a transcript or rollout file…', run: () => this.chooseFile() });
    if (this.current)
      items.push({
        label: '$(debug-stop) Stop following',
        detail: this.current.path,
        run: async () => {
          this.stop();
          return true;
        },
      });
    const chosen = await vscode.window.showQuickPick(items, {
      title: 'Rawr: Follow Agent Session',
      placeHolder: items.length > 1 ? 'What should the panel follow?' : 'No Claude Code or Codex session found for this folder',
    });
    return chosen ? chosen.run() : false;
  }

  private async chooseFile(): Promise<boolean> {
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Follow', filters: { 'Agent sessions (JSON Lines)': ['jsonl'] } });
    const file = picked?.[0];
    if (!file || file.scheme !== 'file') return false;
    const head = await readHead(file.fsPath, 64 * 1024);
    const agent: AgentKind = detectFormat(head) === 'codex' ? 'codex' : 'claude';
    await this.follow(file.fsPath, agent, 'picked by you');
    return true;
  }

  /** Follows `file` from its start (a whole existing session is read in bounded steps, then tailed). */
  async follow(file: string, agent: AgentKind, how: string): Promise<void> {
    this.stop();
    const { settings, prompts } = this.deps.config();
    const head = await readHead(file, 256 * 1024);
    this.current = {
      path: file,
      agent,
      how,
      sessionId: sessionIdOf(agent, file, head),
      tail: new FileTail(file),
      follower: new SessionFollower({ settings, prompts, format: agent }),
      hooks: [],
      steering: [],
      receipts: [],
    };
    this.deps.log.info(`follow: ${file} (${how})`);
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)));
    this.watches.push(
      watcher,
      watcher.onDidChange(() => this.schedule()),
      watcher.onDidCreate(() => this.schedule()),
    );
    const root = this.deps.workspace();
    if (root?.scheme === 'file') {
      // The hooks write snapshots and injection claims while the agent runs.
      const hooksWatch = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, '.rawr/**'));
      this.watches.push(
        hooksWatch,
        hooksWatch.onDidCreate(() => this.schedule()),
      );
    }
    this.poll = setInterval(() => this.schedule(), POLL_MS);
    await this.readNow();
  }

  stop(): void {
    for (const w of this.watches) w.dispose();
    this.watches = [];
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    if (this.current) this.deps.log.info(`follow: stopped ${this.current.path}`);
    this.current = null;
    this.last = null;
    this.item.hide();
    this.changed.fire(null);
  }

  /** A panel action. */
  async handle(msg: FollowAction): Promise<void> {
    switch (msg.type) {
      case 'followPick':
        await this.pick();
        return;
      case 'followStop':
        this.stop();
        return;
      case 'followCopy': {
        const command = this.last?.wouldCompact?.command;
        if (!command) return;
        await vscode.env.clipboard.writeText(command);
        void vscode.window.showInformationMessage(`Copied: ${command.length > 80 ? `${command.slice(0, 79)}…` : command}`);
        return;
      }
      default: {
        const _: never = msg;
        return _;
      }
    }
  }

  private schedule(): void {
    if (!this.current) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readNow().finally(() => {
      this.reading = undefined;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    });
  }

  /** Reads what was appended (all of it, in bounded steps), then publishes the view. */
  async readNow(): Promise<void> {
    const cur = this.current;
    if (!cur) return;
    try {
      for (;;) {
        const { text, reset, more } = await cur.tail.read();
        if (this.current !== cur) return;
        if (reset) {
          const { settings, prompts } = this.deps.config();
          cur.follower = new SessionFollower({ settings, prompts, format: cur.agent });
        }
        if (text) cur.follower.append(text);
        if (!more) break;
        await new Promise((r) => setImmediate(r)); // let the extension host breathe between big steps
      }
      const root = this.deps.workspace();
      if (root?.scheme === 'file' && cur.sessionId) {
        cur.hooks = await hookEvents(root.fsPath, cur.agent, cur.sessionId);
        if (cur.agent === 'claude') cur.steering = await steerLog(root.fsPath, cur.sessionId);
        cur.receipts = await hookReceipts(root.fsPath, cur.agent, cur.sessionId);
      }
    } catch (err) {
      this.deps.log.warn(`follow: reading ${cur.path} failed: ${(err as Error).message ?? err}`);
    }
    if (this.current !== cur) return;
    this.publish(cur, cur.follower.state());
  }

  private publish(cur: Followed, s: FollowState): void {
    const { settings } = this.deps.config();
    const mode = settings.mode;
    const command =
      s.wouldCompact && mode === 'suggest'
        ? cur.agent === 'claude'
          ? `/compact ${s.wouldCompact.instructions}`
          : '/compact' // Codex takes no instructions
        : null;
    const view: FollowView = {
      path: cur.path,
      agent: cur.agent,
      how: cur.how,
      lines: s.lines,
      window: { tokens: s.window.window, why: s.window.why.slice(0, 1_000) },
      gauge: {
        usedTokens: s.contextTokens,
        percentRemaining: s.percentRemaining,
        tier: s.tier,
        thresholds: TIERS.map((tier) => ({ tier, below: thresholdOf(tier, settings) })),
      },
      pending: s.pending.slice(-50).map((b) => b.slice(0, 400)),
      plan: s.plan ? s.plan.slice(0, 100).map((p) => ({ text: p.text.slice(0, 400), status: p.status })) : null,
      decisions: s.decisions.slice(-50).map((d) => ({
        line: d.line,
        point: d.point.slice(0, 20),
        action: d.action,
        tier: d.tier,
        percentRemaining: d.percentRemaining,
        boundaries: d.boundaries.slice(0, 20).map((b) => b.slice(0, 400)),
        reason: d.reason.slice(0, 2_000),
      })),
      nativeCompactions: s.nativeCompactions.map((n) => ({ line: n.line, trigger: n.trigger, preTokens: n.preTokens ?? null })),
      wouldCompact: s.wouldCompact ? { line: s.wouldCompact.line, text: s.wouldCompact.text, command } : null,
      hooks: cur.hooks,
      steering: cur.steering.map((e) => ({ at: e.at, allow: e.allow, why: e.why, text: e.text, trigger: e.trigger })),
      receipts: cur.receipts.map((r) => ({
        at: r.at,
        trigger: r.trigger,
        tokensBefore: r.tokensBefore,
        tokensAfter: r.tokensAfter,
        repairTokens: r.repairTokens,
        facts: Object.entries(r.facts)
          .slice(0, 20)
          .map(([cls, f]) => ({ cls, facts: f.facts, kept: f.kept, added: f.added })),
      })),
      mode,
      problems: s.problems.slice(0, 20).map((p) => `line ${p.line}: ${p.message}`.slice(0, 500)),
      problemCount: s.problemCount,
      updatedAt: Date.now(),
    };
    this.last = view;
    const pct = s.percentRemaining === null ? '—' : `${Math.floor(s.percentRemaining)}%`;
    // Claude Code shows a refused compaction nowhere: the newest answer of rawr's hook is said here.
    const steer = cur.steering.at(-1);
    const steerWord = steer ? (steer.allow ? (steer.why === 'boundary' ? 'compacting' : null) : 'deferred') : null;
    this.item.text = `$(eye) ${pct}${s.tier ? ` · ${s.tier}` : ''}${steerWord ? ` · ${steerWord}` : ''}`;
    this.item.tooltip = `Rawr follows ${cur.agent === 'claude' ? 'Claude Code' : 'Codex'}: ${path.basename(cur.path)}\n${s.contextTokens.toLocaleString('en-US')} of ${s.window.window.toLocaleString('en-US')} tokens (${s.window.why})${s.wouldCompact ? `\n${s.wouldCompact.text}` : ''}${steer ? `\nClaude Code's compaction: ${steer.text}` : ''}`;
    this.item.accessibilityInformation = { label: `rawr follow: ${pct} left${s.tier ? `, tier ${s.tier}` : ''}`, role: 'button' };
    this.item.backgroundColor =
      s.tier === 'emergency'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : s.tier === 'asap'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.show();
    this.changed.fire(view);
  }

  dispose(): void {
    this.stop();
    this.item.dispose();
    this.changed.dispose();
  }
}

/** Registers "Rawr: Follow Agent Session…": pick a session, then show the panel. */
export function registerFollow(context: vscode.ExtensionContext, deps: FollowDeps): FollowController {
  const controller = new FollowController(deps);
  context.subscriptions.push(
    controller,
    vscode.commands.registerCommand(FOLLOW_COMMAND, async (arg?: { file?: string; agent?: AgentKind; stop?: boolean }) => {
      if (arg?.stop) return controller.stop();
      // Tests and other extensions may name the file; people get the quick pick.
      const ok = arg?.file ? (await controller.follow(arg.file, arg.agent ?? 'claude', 'given to the command'), true) : await controller.pick();
      if (ok) await vscode.commands.executeCommand(OPEN_PANEL_COMMAND);
      return controller.view;
    }),
  );
  return controller;
}
