/**
 * What the person attached to a request (`request.references`: files, selections / locations, symbols,
 * `#file`; plain string values) and the tools they referenced (`request.toolReferences`), put into the
 * user's message with paths and line ranges so the model sees them. Within a token budget (a share of the
 * model's window), counted by the model: what does not fit is named, not silently dropped. The message
 * lands in the thread, so it is counted in the context use like any other.
 */
import * as vscode from 'vscode';
import { readTextFile, MAX_FILE_BYTES } from '../tools/fileText';
import { ToolError } from '../tools/workspacePath';

/** Share of the model's input window all attachments of one request may take. */
const BUDGET_SHARE = 0.25;
/** Per attachment, whatever the window. */
const MAX_ATTACHMENT_CHARS = 100_000;

export const ATTACHMENTS_HEADER = '[rawr] Attached by the user:';

interface Piece {
  label: string;
  body: string;
  lang: string;
}

function fence(text: string, lang: string): string {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

const langOf = (p: string) => /\.([A-Za-z0-9]+)$/.exec(p)?.[1]?.toLowerCase() ?? '';

async function fileText(uri: vscode.Uri): Promise<string> {
  // An open editor's text is what the person sees (unsaved changes included).
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (doc) return doc.getText();
  if (uri.scheme === 'file') return readTextFile(uri.fsPath, vscode.workspace.asRelativePath(uri), MAX_FILE_BYTES);
  // Another file system (a remote, a virtual workspace): no descriptor to check, so its provider is asked
  // first: only a file within the cap is read (a FIFO there is type Unknown and would never end a read;
  // a huge file would be read whole before its size could be checked).
  const st = await vscode.workspace.fs.stat(uri);
  if (!(st.type & vscode.FileType.File)) throw new ToolError(st.type & vscode.FileType.Directory ? 'a folder, not a file' : 'not a regular file');
  if (st.size > MAX_FILE_BYTES) throw new ToolError('larger than the 2 MB rawr reads');
  const bytes = await vscode.workspace.fs.readFile(uri);
  if (bytes.byteLength > MAX_FILE_BYTES) throw new ToolError('larger than the 2 MB rawr reads'); // grew since the stat
  return new TextDecoder().decode(bytes);
}

function numbered(lines: string[], from: number): string {
  const width = String(from + lines.length - 1).length;
  return lines.map((l, i) => `${String(from + i).padStart(width)}| ${l}`).join('\n');
}

/**
 * A location reference as 0-based first/last line: a vscode.Location, or the `{uri, range}` shape with a
 * Range or an editor range (`startLineNumber`, 1-based) that some attachment kinds arrive as.
 */
function asLocation(v: unknown): { uri: vscode.Uri; start: number; end: number } | undefined {
  if (!v || typeof v !== 'object' || v instanceof vscode.Uri) return undefined;
  const o = v as { uri?: unknown; range?: Record<string, unknown> };
  if (!(o.uri instanceof vscode.Uri) || !o.range || typeof o.range !== 'object') return undefined;
  const r = o.range as { start?: { line?: unknown }; end?: { line?: unknown }; startLineNumber?: unknown; endLineNumber?: unknown };
  if (typeof r.start?.line === 'number' && typeof r.end?.line === 'number') return { uri: o.uri, start: r.start.line, end: r.end.line };
  if (typeof r.startLineNumber === 'number' && typeof r.endLineNumber === 'number')
    return { uri: o.uri, start: r.startLineNumber - 1, end: r.endLineNumber - 1 };
  return undefined;
}

/** The reference's display name (a newer API field, absent from the typings rawr builds against). */
const refName = (ref: vscode.ChatPromptReference): string | undefined => {
  const n = (ref as { name?: unknown }).name;
  return typeof n === 'string' && n ? n : undefined;
};

async function pieceOf(ref: vscode.ChatPromptReference): Promise<Piece | string> {
  const v = ref.value;
  const name = refName(ref)?.startsWith('file:') ? undefined : refName(ref);
  if (v instanceof vscode.Uri) {
    const rel = vscode.workspace.asRelativePath(v);
    const lines = (await fileText(v)).split(/\r?\n/);
    return { label: `File \`${rel}\` (lines 1–${lines.length})`, body: numbered(lines, 1), lang: langOf(rel) };
  }
  const loc = asLocation(v);
  if (loc) {
    const rel = vscode.workspace.asRelativePath(loc.uri);
    const all = (await fileText(loc.uri)).split(/\r?\n/);
    const start = Math.min(loc.start, all.length - 1);
    const end = Math.max(start, Math.min(loc.end, all.length - 1));
    // A symbol reference is named by its identifier; a selection by its file (and lines).
    const what = name && /^[A-Za-z_$][\w$.]*$/.test(name) && !/\.[a-z0-9]{1,5}$/i.test(name) ? `Symbol \`${name}\` in` : 'Selection of';
    return { label: `${what} \`${rel}\` (lines ${start + 1}–${end + 1})`, body: numbered(all.slice(start, end + 1), start + 1), lang: langOf(rel) };
  }
  if (typeof v === 'string') return { label: `${name ? `\`${name}\`` : 'Text'}${ref.modelDescription ? ` — ${ref.modelDescription}` : ''}`, body: v, lang: '' };
  return `${name ?? ref.id}: an attachment of a kind rawr does not read`;
}

export interface Attached {
  /** The prompt plus the attachments block (the prompt alone when nothing was attached). */
  text: string;
  /** One line per attachment for the chat ("Attached src/a.ts (lines 1–40, 312 tokens)"). */
  lines: string[];
}

export async function withAttachments(request: vscode.ChatRequest, model: vscode.LanguageModelChat, token: vscode.CancellationToken): Promise<Attached> {
  const refs = request.references ?? [];
  const toolRefs = request.toolReferences ?? [];
  if (refs.length === 0 && toolRefs.length === 0) return { text: request.prompt, lines: [] };
  let budget = Math.max(1000, Math.floor((model.maxInputTokens || 8000) * BUDGET_SHARE));
  const blocks: string[] = [];
  const lines: string[] = [];
  for (const ref of refs) {
    let piece: Piece | string;
    try {
      piece = await pieceOf(ref);
    } catch (err) {
      const why = err instanceof ToolError || err instanceof Error ? err.message : String(err);
      blocks.push(`- ${refName(ref) ?? ref.id}: could not be read (${why})`);
      lines.push(`✗ Could not attach ${refName(ref) ?? ref.id}: ${why}`);
      continue;
    }
    if (typeof piece === 'string') {
      blocks.push(`- ${piece}`);
      continue;
    }
    let body =
      piece.body.length > MAX_ATTACHMENT_CHARS ? `${piece.body.slice(0, MAX_ATTACHMENT_CHARS)}\n[… cut at ${MAX_ATTACHMENT_CHARS} characters]` : piece.body;
    let block = `### ${piece.label}\n${fence(body, piece.lang)}`;
    let tokens = await count(model, block, token);
    if (tokens > budget) {
      // Keep as many whole lines as fit, and say what was left out.
      const keep = Math.max(0, Math.floor((body.length * budget) / tokens) - 200);
      body = `${body.slice(0, body.lastIndexOf('\n', keep) > 0 ? body.lastIndexOf('\n', keep) : keep)}\n[… the rest did not fit rawr's attachment budget; read it with rawr_read_file]`;
      block =
        keep > 0
          ? `### ${piece.label} (cut to fit)\n${fence(body, piece.lang)}`
          : `### ${piece.label}: not included (over the attachment budget; read it with rawr_read_file)`;
      tokens = await count(model, block, token);
    }
    budget -= tokens;
    blocks.push(block);
    lines.push(`📎 ${piece.label.replace(/`/g, '')}, ${tokens} tokens`);
  }
  if (toolRefs.length) {
    blocks.push(`The user referenced these tools; use them where they help: ${toolRefs.map((t) => t.name).join(', ')}.`);
    lines.push(`🔧 Tools referenced: ${toolRefs.map((t) => t.name).join(', ')}`);
  }
  return { text: `${request.prompt}\n\n${ATTACHMENTS_HEADER}\n\n${blocks.join('\n\n')}`, lines };
}

async function count(model: vscode.LanguageModelChat, text: string, token: vscode.CancellationToken): Promise<number> {
  try {
    return await model.countTokens(text, token);
  } catch {
    return Math.ceil(text.length / 4);
  }
}
