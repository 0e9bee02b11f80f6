// Globals of a VS Code webview, for type-checking media/panel.js (tsconfig.checkjs.json).
declare function acquireVsCodeApi(): {
  postMessage(message: unknown): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- whatever panel.js saved with setState (VS Code types it so too)
  getState(): any;
  setState(state: unknown): void;
};
