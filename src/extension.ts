import * as vscode from 'vscode';

// Minimal entry point so the real-VS-Code test tier has something to load; the real extension
// (chat participant, compaction flow) replaces this.
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Rawr', { log: true });
  context.subscriptions.push(log);
  log.info('rawr activated');
  context.subscriptions.push(
    vscode.commands.registerCommand('rawr.showDecisionLog', () => log.show(true)),
  );
}

export function deactivate(): void {}
