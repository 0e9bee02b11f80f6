/**
 * Read, list, search, create and edit: rawr's file tools, inside the workspace only (workspacePath.ts),
 * text files within a size cap (fileText.ts), bounded output.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { TOOL_SPECS } from './catalog';
import { applyEdit, MAX_FILE_BYTES, numberedRange, readTextFile } from './fileText';
import { fence, previewLines, type ToolContext, type ToolImpl } from './toolHost';
import { relativeTo, resolveInWorkspace, ToolError } from './workspacePath';

/** Never listed or searched: dependencies, build output, VCS data. */
const EXCLUDE = '**/{node_modules,.git,out,dist,.vscode-test}/**';
const MAX_SEARCH_FILES = 5000;
const MAX_SEARCH_LINE = 300;
/** A search stops after this long and says so (bounded time on huge workspaces). */
const SEARCH_BUDGET_MS = 15_000;

export const readFileTool: ToolImpl<typeof TOOL_SPECS.readFile.schema> = {
  spec: TOOL_SPECS.readFile,
  message: (i) => `Reading ${i.path}${i.startLine || i.endLine ? ` (lines ${i.startLine ?? 1}–${i.endLine ?? 'end'})` : ''}`,
  async run(input, ctx) {
    const p = await resolveInWorkspace(ctx.roots(), input.path);
    const text = await readTextFile(p.abs, p.rel);
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
    const rels = files
      .slice(0, max)
      .map((f) => relativeTo(ctx.roots(), f))
      .sort();
    if (rels.length === 0) return `No files match ${glob}.`;
    return `${rels.join('\n')}${files.length > max ? `\n[… more than ${max} files match; narrow the glob]` : ''}`;
  },
};

export const searchTextTool: ToolImpl<typeof TOOL_SPECS.searchText.schema> = {
  spec: TOOL_SPECS.searchText,
  message: (i) => `Searching for ${JSON.stringify(i.query)}`,
  async run(input, ctx, token) {
    if (ctx.roots().length === 0) throw new ToolError('No workspace folder is open.');
    let re: RegExp;
    try {
      const source = input.isRegex ? input.query : input.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      re = new RegExp(source, input.caseSensitive ? '' : 'i');
    } catch (err) {
      throw new ToolError(`invalid regular expression: ${(err as Error).message}`);
    }
    const max = input.maxResults ?? 100;
    const files = await findFiles(ctx, input.glob ?? '**/*', MAX_SEARCH_FILES, token);
    const started = Date.now();
    const hits: string[] = [];
    let searched = 0;
    let note = files.length > MAX_SEARCH_FILES ? `\n[only the first ${MAX_SEARCH_FILES} files were searched; narrow the glob]` : '';
    for (const f of files.slice(0, MAX_SEARCH_FILES)) {
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      if (Date.now() - started > SEARCH_BUDGET_MS) {
        note = `\n[stopped after ${SEARCH_BUDGET_MS / 1000} s with ${searched} of ${files.length} files searched; narrow the glob]`;
        break;
      }
      let text: string;
      try {
        const st = await fs.stat(f);
        if (!st.isFile() || st.size > MAX_FILE_BYTES) continue;
        const buf = await fs.readFile(f);
        if (buf.subarray(0, 8192).includes(0)) continue;
        text = buf.toString('utf8');
      } catch {
        continue;
      }
      searched++;
      const rel = relativeTo(ctx.roots(), f);
      const lines = text.split(/\r?\n/);
      for (let i = 0; i < lines.length && hits.length <= max; i++) {
        const line = lines[i]!.length > 10_000 ? lines[i]!.slice(0, 10_000) : lines[i]!;
        if (re.test(line)) hits.push(`${rel}:${i + 1}: ${line.trim().slice(0, MAX_SEARCH_LINE)}`);
      }
      if (hits.length > max) {
        note = `\n[more than ${max} matching lines; narrow the query or the glob]`;
        break;
      }
    }
    if (hits.length === 0) return `No matches for ${JSON.stringify(input.query)} in ${searched} files.${note}`;
    return hits.slice(0, max).join('\n') + note;
  },
};

/** The open document of a path, if an editor has it (its unsaved text is the truth to edit). */
function openDocument(abs: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === abs);
}

/** Writes the whole text: through the editor when the file is open (then saved), else to disk. */
async function writeText(abs: string, text: string): Promise<void> {
  const doc = openDocument(abs);
  if (doc) {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
    if (!(await vscode.workspace.applyEdit(edit))) throw new ToolError(`VS Code refused the edit of ${vscode.workspace.asRelativePath(doc.uri)}.`);
    if (!(await doc.save())) throw new ToolError(`${vscode.workspace.asRelativePath(doc.uri)} was edited in its editor but could not be saved.`);
    return;
  }
  await fs.writeFile(abs, text, 'utf8');
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
    await fs.mkdir(path.dirname(p.abs), { recursive: true });
    // The folders just made could not have been links: check the final place once more before writing.
    const again = await resolveInWorkspace(ctx.roots(), p.abs);
    if (again.abs !== p.abs) throw new ToolError(`${p.rel} moved while it was being created; not written.`);
    if (p.exists) await writeText(p.abs, input.content);
    else await fs.writeFile(p.abs, input.content, { encoding: 'utf8', flag: 'wx' });
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
    const text = doc ? doc.getText() : await readTextFile(p.abs, p.rel);
    const r = applyEdit(text, input.old_string, input.new_string, input.replace_all, p.rel);
    await writeText(p.abs, r.text);
    return `Edited ${p.rel}: replaced ${r.count} occurrence${r.count === 1 ? '' : 's'}.`;
  },
};
