/**
 * The panel's HTML shell (vscode-free, unit-tested): a strict Content-Security-Policy with a per-render
 * nonce — nothing loads unless it comes from the webview's own resource origin (media/ is the only local
 * resource root) or carries the nonce; no inline script or style runs — then the codicon and panel
 * stylesheets and media/panel.js. Everything else is drawn by panel.js from the posted view model.
 */
export interface PanelHtmlInput {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  codiconCss: string;
  css: string;
  js: string;
  title: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `style-src ${cspSource} 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`, `font-src ${cspSource}`, `img-src ${cspSource}`].join(
    '; ',
  );
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function panelHtml(i: PanelHtmlInput): string {
  const nonce = attr(i.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(i.cspSource, i.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${attr(i.codiconCss)}">
<link rel="stylesheet" nonce="${nonce}" href="${attr(i.css)}">
<title>${attr(i.title)}</title>
</head>
<body>
<main id="app" aria-label="Rawr compaction panel"><p class="muted">Loading…</p></main>
<script nonce="${nonce}" src="${attr(i.js)}"></script>
</body>
</html>`;
}
