/**
 * Runs one command for the agent in rawr's own integrated terminal ("rawr agent"), through shell
 * integration: the person sees it typed and running, the output and the exit code come back to the model,
 * and a commit made there is seen by the git extension (and by rawr's terminal boundary source) like any
 * other. Bounded: a command that has not ended by its timeout, or whose request is cancelled, is
 * interrupted (Ctrl-C, then the terminal is closed if the shell does not come back); the output kept is
 * the first and last part. Commands run one at a time.
 *
 * Where the shell never activates shell integration (an unsupported shell), the command runs in a child
 * process with the same bounds instead (childProcessRunner.ts), and the answer says so.
 */
import * as vscode from 'vscode';
import { stripAnsi } from '../signals/terminalSource';
import { AGENT_ENV, MAX_OUTPUT_CHARS, runInChildProcess, type CommandResult } from './childProcessRunner';
import { capText } from './fileText';

export type { CommandResult };
export const TERMINAL_NAME = 'rawr agent';
/** How long a new terminal may take to activate shell integration (2–7 s measured in VS Code 1.139). */
const SHELL_INTEGRATION_WAIT_MS = 15_000;
/** After Ctrl-C, how long the shell gets to end the command before the terminal is closed. */
const INTERRUPT_GRACE_MS = 3_000;

export class TerminalRunner implements vscode.Disposable {
  private terminal: vscode.Terminal | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly closed: vscode.Disposable;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.closed = vscode.window.onDidCloseTerminal((t) => {
      if (t === this.terminal) this.terminal = undefined;
    });
  }

  /** Runs `command` in `cwd` (one command at a time); never rejects for the command's own failure. */
  run(command: string, cwd: string, timeoutMs: number, token: vscode.CancellationToken): Promise<CommandResult> {
    const next = this.queue.then(() => this.runNow(command, cwd, timeoutMs, token));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(command: string, cwd: string, timeoutMs: number, token: vscode.CancellationToken): Promise<CommandResult> {
    if (token.isCancellationRequested) return { exitCode: undefined, output: '', interrupted: 'cancelled', via: 'terminal' };
    const terminal = this.ensureTerminal(cwd);
    terminal.show(true);
    const integration = await waitForShellIntegration(terminal, SHELL_INTEGRATION_WAIT_MS, token);
    if (!integration) {
      this.log.warn(`terminal "${TERMINAL_NAME}": no shell integration after ${SHELL_INTEGRATION_WAIT_MS} ms; running the command in a child process`);
      return runInChildProcess(command, cwd, timeoutMs, token);
    }
    // cd first: the terminal may have been left elsewhere by an earlier command.
    const line = integration.cwd?.fsPath === cwd ? command : `cd ${shellQuote(cwd)} && ${command}`;
    const execution = integration.executeCommand(line);
    // read() yields only what is written after its first call: start reading at once.
    const chunks: string[] = [];
    let size = 0;
    const reading = (async () => {
      try {
        for await (const d of execution.read()) {
          chunks.push(d);
          size += d.length;
          if (size > 4 * MAX_OUTPUT_CHARS) {
            // keep the head and a moving tail
            const joined = chunks.join('');
            chunks.length = 0;
            chunks.push(joined.slice(0, MAX_OUTPUT_CHARS), joined.slice(-MAX_OUTPUT_CHARS));
            size = 2 * MAX_OUTPUT_CHARS;
          }
        }
      } catch {
        // the terminal went away: keep what was read
      }
    })();
    const ended = new Promise<number | undefined>((resolve) => {
      const finish = (code: number | undefined) => {
        sub.dispose();
        gone.dispose();
        resolve(code);
      };
      const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
        if (e.execution === execution) finish(e.exitCode);
      });
      const gone = vscode.window.onDidCloseTerminal((t) => {
        if (t === terminal) finish(undefined);
      });
    });
    const interrupted = await raceInterrupt(ended, timeoutMs, token);
    let exitCode: number | undefined;
    if (interrupted) {
      terminal.sendText('\x03', false);
      const afterCtrlC = await Promise.race([ended, sleep(INTERRUPT_GRACE_MS).then(() => 'stuck' as const)]);
      if (afterCtrlC === 'stuck') {
        this.log.warn(`terminal "${TERMINAL_NAME}": the command did not stop on Ctrl-C; closing the terminal`);
        terminal.dispose();
        this.terminal = undefined;
      }
    } else exitCode = await ended;
    await Promise.race([reading, sleep(1000)]);
    const output = capText(stripAnsi(chunks.join('')).replace(/\r\n?/g, '\n'), MAX_OUTPUT_CHARS);
    return { exitCode, output, ...(interrupted ? { interrupted } : {}), via: 'terminal' };
  }

  private ensureTerminal(cwd: string): vscode.Terminal {
    if (this.terminal && this.terminal.exitStatus === undefined) return this.terminal;
    this.terminal = vscode.window.createTerminal({ name: TERMINAL_NAME, cwd, env: AGENT_ENV, iconPath: new vscode.ThemeIcon('fold') });
    return this.terminal;
  }

  dispose(): void {
    this.closed.dispose();
    this.terminal?.dispose();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolves undefined when `ended` settles first, else why rawr must interrupt. */
async function raceInterrupt(ended: Promise<unknown>, timeoutMs: number, token: vscode.CancellationToken): Promise<'timeout' | 'cancelled' | undefined> {
  let timer: NodeJS.Timeout | undefined;
  let sub: vscode.Disposable | undefined;
  try {
    return await Promise.race([
      ended.then(() => undefined),
      new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs))),
      new Promise<'cancelled'>((r) => {
        if (token.isCancellationRequested) r('cancelled');
        sub = token.onCancellationRequested(() => r('cancelled'));
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
    sub?.dispose();
  }
}

async function waitForShellIntegration(
  terminal: vscode.Terminal,
  ms: number,
  token: vscode.CancellationToken,
): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) return terminal.shellIntegration;
  return new Promise((resolve) => {
    const done = (v: vscode.TerminalShellIntegration | undefined) => {
      clearTimeout(timer);
      sub.dispose();
      cancel.dispose();
      resolve(v);
    };
    const timer = setTimeout(() => done(terminal.shellIntegration), ms);
    const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => {
      if (e.terminal === terminal) done(e.shellIntegration);
    });
    const cancel = token.onCancellationRequested(() => done(undefined));
  });
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
