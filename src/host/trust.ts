/**
 * Whether the workspace is trusted (Restricted Mode off). One place, so the tools, the offered tool list
 * and the chat's notice agree — and so the real-VS-Code tests can play Restricted Mode in a test host that
 * runs with workspace trust disabled (RawrApi.testing.setRestrictedMode).
 */
import * as vscode from 'vscode';

let override: boolean | undefined;

export function workspaceTrusted(): boolean {
  return override ?? vscode.workspace.isTrusted;
}

/** Tests only: `true` plays Restricted Mode, `undefined` returns to VS Code's trust state. */
export function setRestrictedModeForTests(restricted: boolean | undefined): void {
  override = restricted === undefined ? undefined : !restricted;
}
