/**
 * Read, list, search, create and edit: rawr's file tools, inside the workspace only (workspacePath.ts:
 * every file a tool touches, found by a listing or named by the model, goes through its one check), text
 * files within a size cap in an encoding they round-trip through (fileText.ts), bounded output, and a
 * search that never runs a pattern on the extension host's thread (textSearch.ts).
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { TOOL_SPECS } from './catalog';
import { applyEdit, numberedRange, readWorkspaceText } from './fileText';
import { encodeText, type DecodedText, type TextEncoding } from './textEncoding';
import { DEFAULT_SEARCH_BUDGET, searchFiles, type SearchBudget } from './textSearch';
import { fence, previewLines, type ToolContext, type ToolImpl } from './toolHost';
import { foundInWorkspace, openInWorkspace, relativeTo, resolveInWorkspace, ToolError, type ResolvedPath } from './workspacePath';

/** Never listed or searched: dependencies, build output, VCS data (a .git reached through a link is refused by the check). */
const EXCLUDE = '**/{node_modules,.git,out,dist,.vscode-test}/**';
const MAX_SEARCH_FILES = 5000;

export const readFileTool: ToolImpl<typeof TOOL_SPECS.readFile.schema> = {
  spec: TOOL_SPECS.readFile,
  message: (i) => `Reading ${i.path}${i.startLine || i.endLine ? ` (lines ${i.startLine ?? 1}–${i.endLine ?? 'end'})` : ''}`,
  async run(input, ctx) {
    const p = await resolveInWorkspace(ctx.roots(), input.path);
    const { text } = await readWorkspaceText(ctx.roots(), p);
    return numberedRange(text, p.rel, input.startLine ?? 1, input.endLine);
  },
};

async function findFiles(ctx: ToolContext, glob: string, max: number, token: vscode.CancellationToken): Promise<string[]> {
  const found: string[] = [];
  for (const root of ctx.roots()) {
    const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(vscode.Uri.file(root), glob), EXCLUDE, max + 1 - found.length, token);
    for (const u of uris) found.push(u.fsPath);
    if (found.length > max) break;
  }
  return found;
}

export const listFilesTool: ToolImpl<typeof TOOL_SPECS.listFiles.schema> = {
  spec: TOOL_SPECS.listFiles,
  message: (i) => `Listing ${i.glob ?? 'files'}`,
  async run(input, ctx, token) {
    if (ctx.roots().length === 0) throw new ToolError('No workspace folder is open.');
    const max = input.maxResults ?? 200;
    const glob = input.glob ?? '**/*';
    const files = await findFiles(ctx, glob, max, token);
    const rels: string[] = [];
    let refused = 0;
    for (const f of files.slice(0, max)) {
      if (await foundInWorkspace(ctx.roots(), f)) rels.push(relativeTo(ctx.roots(), f));
      else refused++;
    }
    rels.sort();
    const notes = [
      ...(files.length > max ? [`[… more than ${max} files match; narrow the glob]`] : []),
      ...(refused ? [`[${refused} not listed: links that lead outside the workspace or into a .git folder]`] : []),
    ];
    if (rels.length === 0) return [`No files match ${glob}.`, ...notes].join('\n');
    return [...rels, ...notes].join('\n');
  },
};

/** rawr_search_text with a time budget (tests give a shorter one). */
export function makeSearchTextTool(budget: SearchBudget = DEFAULT_SEARCH_BUDGET): ToolImpl<typeof TOOL_SPECS.searchText.schema> {
  return {
    spec: TOOL_SPECS.searchText,
    message: (i) => `Searching for ${JSON.stringify(i.query)}`,
    async run(input, ctx, token) {
      if (ctx.roots().length === 0) throw new ToolError('No workspace folder is open.');
      const query = { query: input.query, isRegex: input.isRegex, caseSensitive: input.caseSensitive, max: input.maxResults ?? 100 };
      const files = await findFiles(ctx, input.glob ?? '**/*', MAX_SEARCH_FILES, token);
      const r = await searchFiles(ctx.roots(), files.slice(0, MAX_SEARCH_FILES), query, token, budget, files.length > MAX_SEARCH_FILES);
      if (r.kind === 'cancelled') throw new vscode.CancellationError();
      return r.text;
    },
  };
}

export const searchTextTool = makeSearchTextTool();

/** The open document of a path, if an editor has it (its unsaved text is the truth to edit). */
function openDocument(abs: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === abs);
}

/**
 * Writes the whole text: through the editor when the file is open (VS Code saves it in the document's
 * encoding), else to disk in `encoding`, through a descriptor checked again (workspacePath.ts).
 */
async function writeText(roots: readonly string[], p: ResolvedPath, text: string, encoding: TextEncoding): Promise<void> {
  const doc = openDocument(p.abs);
  if (doc) {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
    if (!(await vscode.workspace.applyEdit(edit))) throw new ToolError(`VS Code refused the edit of ${vscode.workspace.asRelativePath(doc.uri)}.`);
    if (!(await doc.save())) throw new ToolError(`${vscode.workspace.asRelativePath(doc.uri)} was edited in its editor but could not be saved.`);
    return;
  }
  const bytes = encodeText(text, encoding);
  // Not O_TRUNC: nothing is cut before the descriptor has been checked.
  const handle = await openInWorkspace(roots, p, constants.O_WRONLY);
  try {
    await handle.truncate(0);
    await handle.write(bytes, 0, bytes.length, 0);
  } finally {
    await handle.close();
  }
}

export const createFileTool: ToolImpl<typeof TOOL_SPECS.createFile.schema> = {
  spec: TOOL_SPECS.createFile,
  message: (i) => `Creating ${i.path}`,
  async confirm(input, ctx) {
    const p = await resolveInWorkspace(ctx.roots(), input.path);
    const lines = input.content.split('\n').length;
    return {
      title: p.exists ? `Overwrite ${p.rel}?` : `Create ${p.rel}?`,
      message: `${p.exists ? 'Replace the content of' : 'Create'} \`${p.rel}\` (${lines} line${lines === 1 ? '' : 's'}):\n\n${fence(previewLines(input.content), path.extname(p.rel).slice(1))}`,
    };
  },
  async run(input, ctx) {
    const p = await resolveInWorkspace(ctx.roots(), input.path);
    if (p.exists) {
      const st = await fs.stat(p.abs);
      if (!st.isFile()) throw new ToolError(`${p.rel} exists and is not a regular file.`);
      if (!input.overwrite) throw new ToolError(`${p.rel} already exists: use rawr_edit_file to change it, or overwrite: true to replace it.`);
    }
    try {
      await fs.mkdir(path.dirname(p.abs), { recursive: true });
    } catch (err) {
      // A folder on the way is a file (or a link to one): the model's mistake, told as such.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR') throw new ToolError(`cannot create ${p.rel}: a part of its folder path is a file, not a folder.`);
      // A link on the way that leads nowhere (its target is gone): mkdir cannot make a folder through it.
      if (code === 'ENOENT') throw new ToolError(`cannot create ${p.rel}: a part of its folder path is a link to something that does not exist.`);
      throw err;
    }
    // The folders just made could not have been links: check the final place once more before writing.
    const again = await resolveInWorkspace(ctx.roots(), p.abs);
    if (again.abs !== p.abs) throw new ToolError(`${p.rel} moved while it was being created; not written.`);
    if (p.exists) await writeText(ctx.roots(), p, input.content, 'utf8');
    else {
      // O_EXCL: never through a link, never over a file that appeared meanwhile; checked on the descriptor.
      const handle = await openInWorkspace(ctx.roots(), p, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
      try {
        await handle.writeFile(input.content, 'utf8');
      } finally {
        await handle.close();
      }
    }
    return `${p.exists ? 'Overwrote' : 'Created'} ${p.rel} (${input.content.split('\n').length} lines).`;
  },
};

export const editFileTool: ToolImpl<typeof TOOL_SPECS.editFile.schema> = {
  spec: TOOL_SPECS.editFile,
  message: (i) => `Editing ${i.path}`,
  async confirm(input, ctx) {
    const p = await resolveInWorkspace(ctx.roots(), input.path);
    const diff = [
      ...previewLines(input.old_string, 20)
        .split('\n')
        .map((l) => `- ${l}`),
      ...previewLines(input.new_string, 20)
        .split('\n')
        .map((l) => `+ ${l}`),
    ].join('\n');
    return { title: `Edit ${p.rel}?`, message: `Replace${input.replace_all ? ' every occurrence' : ''} in \`${p.rel}\`:\n\n${fence(diff, 'diff')}` };
  },
  async run(input, ctx) {
    const p = await resolveInWorkspace(ctx.roots(), input.path);
    if (!p.exists) throw new ToolError(`${p.rel} does not exist: use rawr_create_file to create it.`);
    const doc = openDocument(p.abs);
    // The bytes on disk decide whether the file can be edited without loss (fileText.ts decodeText). An
    // open editor's text is the truth to edit (unsaved changes) unless VS Code itself decoded the file
    // lossily (U+FFFD where the disk has bytes that are not UTF-8): then saving it would corrupt it too.
    let disk: DecodedText | ToolError;
    try {
      disk = await readWorkspaceText(ctx.roots(), p);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      disk = err;
    }
    if (disk instanceof ToolError && (!doc || doc.getText().includes('\ufffd'))) throw disk;
    // With an open editor the encoding is VS Code's (writeText saves through it).
    const { text, encoding } = doc || disk instanceof ToolError ? { text: doc!.getText(), encoding: 'utf8' as const } : disk;
    const r = applyEdit(text, input.old_string, input.new_string, input.replace_all, p.rel);
    await writeText(ctx.roots(), p, r.text, encoding);
    return `Edited ${p.rel}: replaced ${r.count} occurrence${r.count === 1 ? '' : 's'}.`;
  },
};
