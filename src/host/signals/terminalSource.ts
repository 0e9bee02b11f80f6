/**
 * Commit / push / PR boundaries from commands run in VS Code's integrated terminals (shell integration):
 * the command line, its exit code and its output go through the core's `detectShellBoundaries`, which
 * tells a real `git commit` from `echo git commit` and a failed commit from a successful one.
 *
 * Output must be read from the moment an execution STARTS (`execution.read()` only yields data written
 * after its first call), so every execution gets a collector on `onDidStartTerminalShellExecution`; on
 * `onDidEndTerminalShellExecution` the collected text (bounded: the first and last 32 KB, where git's
 * commit summary line and push `To …` block are; ANSI escapes stripped) is analysed and every boundary is
 * reported with source 'terminal'.
 */
import * as vscode from 'vscode';
import type { BoundaryBus } from '../boundaryBus';
import { detectShellBoundaries } from '../../core/signals/shell';

/** Characters kept from the start and from the end of one execution's output. */
const HEAD_CHARS = 32 * 1024;
const TAIL_CHARS = 32 * 1024;
/** How long the end handler waits for the output stream to drain after the execution ended. */
const DRAIN_MS = 1500;

export function watchTerminals(bus: BoundaryBus, log: vscode.LogOutputChannel): vscode.Disposable {
  const collectors = new Map<vscode.TerminalShellExecution, OutputCollector>();
  const byTerminal = new Map<vscode.Terminal, OutputCollector>();

  const started = vscode.window.onDidStartTerminalShellExecution((e) => {
    let stream: AsyncIterable<string>;
    try {
      stream = e.execution.read();
    } catch (err) {
      log.debug(`terminal: cannot read execution output: ${(err as Error).message}`);
      return;
    }
    const c = new OutputCollector(stream);
    collectors.set(e.execution, c);
    byTerminal.set(e.terminal, c);
  });

  const ended = vscode.window.onDidEndTerminalShellExecution(async (e) => {
    let c = collectors.get(e.execution);
    if (!c) {
      // The same execution should arrive as the same object; if not, the terminal's latest one is it.
      c = byTerminal.get(e.terminal);
    }
    collectors.delete(e.execution);
    if (byTerminal.get(e.terminal) === c) byTerminal.delete(e.terminal);
    try {
      const command = e.execution.commandLine.value;
      if (!command.trim()) return;
      const output = c ? await c.text(DRAIN_MS) : '';
      const boundaries = detectShellBoundaries({ command, exitCode: e.exitCode, output });
      if (boundaries.length === 0) {
        log.debug(`terminal "${e.terminal.name}": command ended (exit ${e.exitCode ?? '?'}), no boundary`);
        return;
      }
      for (const boundary of boundaries) {
        log.info(`terminal "${e.terminal.name}": ${boundary.kind} ${boundary.detail} (exit ${e.exitCode ?? '?'})`);
        bus.fire({ source: 'terminal', boundary, at: Date.now() });
      }
    } catch (err) {
      log.warn(`terminal: cannot analyse a command: ${(err as Error)?.message ?? err}`);
    } finally {
      c?.stop();
    }
  });

  const closed = vscode.window.onDidCloseTerminal((t) => {
    const c = byTerminal.get(t);
    byTerminal.delete(t);
    for (const [exec, col] of collectors) if (col === c) collectors.delete(exec);
    c?.stop();
  });

  return new vscode.Disposable(() => {
    started.dispose();
    ended.dispose();
    closed.dispose();
    for (const c of collectors.values()) c.stop();
    collectors.clear();
    byTerminal.clear();
  });
}

/** Reads a terminal data stream into a bounded head + tail buffer. */
class OutputCollector {
  private head = '';
  private tail = '';
  private dropped = 0;
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(stream: AsyncIterable<string>) {
    this.done = (async () => {
      try {
        for await (const chunk of stream) {
          if (this.stopped) break;
          this.add(chunk);
        }
      } catch {
        // a terminal that goes away ends its stream with an error: keep what was read
      }
    })();
  }

  private add(chunk: string): void {
    if (this.head.length < HEAD_CHARS) {
      const room = HEAD_CHARS - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
      if (!chunk) return;
    }
    this.tail += chunk;
    if (this.tail.length > TAIL_CHARS * 2) {
      const cut = this.tail.length - TAIL_CHARS;
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  /** The output so far (waiting at most `ms` for the stream to end), escapes stripped. */
  async text(ms: number): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.done, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    if (timer) clearTimeout(timer);
    let tail = this.tail;
    if (tail.length > TAIL_CHARS) {
      this.dropped += tail.length - TAIL_CHARS;
      tail = tail.slice(tail.length - TAIL_CHARS);
    }
    const gap = this.dropped > 0 ? `\n[… ${this.dropped} characters of output not kept …]\n` : '';
    return stripAnsi(this.head + gap + tail);
  }

  stop(): void {
    this.stopped = true;
  }
}

/**
 * Terminal data → plain text: CSI (colours, cursor moves), OSC (titles, hyperlinks, shell-integration
 * `633;…` marks), DCS/PM/APC strings and lone escapes are removed, as are control characters other than
 * newline, carriage return and tab.
 */
export function stripAnsi(text: string): string {
  return (
    text
      // OSC … BEL | ST
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b\][\s\S]*?(?:\x07|\x1b\\|$)/g, '')
      // DCS / SOS / PM / APC … ST
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b[PX^_][\s\S]*?(?:\x1b\\|$)/g, '')
      // CSI
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
      // 8-bit CSI
      .replace(/\x9b[0-?]*[ -/]*[@-~]/g, '')
      // two-character escapes (charset selection, keypad modes, …)
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b[ -/]*[0-~]/g, '')
      // eslint-disable-next-line no-control-regex
      .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, '')
  );
}
