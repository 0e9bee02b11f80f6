/**
 * The small part of the `vscode` API rawr's extension host uses, for the unit tier (as Copilot Chat's
 * unit tests do with their own shim): what `require('vscode')` resolves to under mocha (see
 * test/support/vscode/register.ts). Classes behave like VS Code's where rawr depends on it —
 * cancellation, events, language-model parts and messages, chat history turns, Uri paths, the
 * workspace file system (on the real disk) — and record what a test may want to inspect (output
 * channel lines, status bar items, commands). Things rawr does not use are not here: using one is a
 * TypeError in the test, never a silent no-op.
 */
import * as fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import * as path from 'node:path';
import { minimatch } from 'minimatch';

// ---- events, disposables, cancellation ------------------------------------------------------------------

export class Disposable {
  constructor(private readonly fn: () => void) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export type Event<T> = (listener: (e: T) => unknown, thisArgs?: unknown, disposables?: Disposable[]) => Disposable;

export class EventEmitter<T> {
  private listeners: Array<(e: T) => unknown> = [];
  private disposed = false;
  readonly event: Event<T> = (listener, thisArgs, disposables) => {
    const fn = thisArgs ? listener.bind(thisArgs) : listener;
    if (!this.disposed) this.listeners.push(fn);
    const d = new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== fn)));
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of this.listeners.slice()) l(e);
  }
  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}

export interface CancellationToken {
  isCancellationRequested: boolean;
  onCancellationRequested: Event<void>;
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  private cancelled = false;
  readonly token: CancellationToken;
  constructor() {
    const isCancelled = () => this.cancelled;
    this.token = {
      get isCancellationRequested() {
        return isCancelled();
      },
      // As in VS Code, a listener added after cancellation is called at once.
      onCancellationRequested: (listener, thisArgs, disposables) => {
        if (this.cancelled) {
          queueMicrotask(() => listener.call(thisArgs, undefined));
          return new Disposable(() => undefined);
        }
        return this.emitter.event(listener, thisArgs, disposables);
      },
    };
  }
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

// ---- Uri and the workspace file system -------------------------------------------------------------------

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', path.posix.normalize(p.split(path.sep).join('/')));
  }
  /** A Uri of any scheme (a remote or virtual file system); in this shim its path is still read from the disk. */
  static from(c: { scheme: string; path: string }): Uri {
    return new Uri(c.scheme, c.path);
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, path.posix.join(base.path, ...segments));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
}

export const FileType = { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 } as const;

export class RelativePattern {
  readonly baseUri: Uri;
  constructor(
    base: Uri | string,
    readonly pattern: string,
  ) {
    this.baseUri = typeof base === 'string' ? Uri.file(base) : base;
  }
}

/** VS Code's default `files.exclude`, which findFiles applies on top of its `exclude` argument. */
const FILES_EXCLUDE = ['**/.git', '**/.svn', '**/.hg', '**/CVS', '**/.DS_Store', '**/Thumbs.db'];

/**
 * workspace.findFiles as VS Code's file search does it on disk: files (not folders) under the pattern's
 * base whose relative path matches its glob (dot files included), minus `exclude` and `files.exclude`
 * (a matching folder is not entered), symlinks followed (`search.followSymlinks` defaults to true; a
 * link is returned under its own path, a loop is not walked twice), at most `maxResults`.
 */
async function findFiles(include: RelativePattern, exclude?: string | null, maxResults = Infinity, token?: CancellationToken): Promise<Uri[]> {
  const base = include.baseUri.fsPath;
  const excludes = [...FILES_EXCLUDE, ...(exclude ? [exclude] : [])];
  const excluded = (rel: string) => excludes.some((g) => minimatch(rel, g, { dot: true }) || minimatch(`${rel}/x`, g, { dot: true }));
  const found: Uri[] = [];
  const seen = new Set<string>();
  const walk = async (dir: string, rel: string): Promise<void> => {
    const real = await fs.realpath(dir).catch(() => undefined);
    if (!real || seen.has(real)) return;
    seen.add(real);
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= maxResults || token?.isCancellationRequested) return;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (excluded(childRel)) continue;
      const abs = path.join(dir, e.name);
      const st = e.isSymbolicLink() ? await fs.stat(abs).catch(() => undefined) : e;
      if (!st) continue; // a dangling link
      if (st.isDirectory()) await walk(abs, childRel);
      else if (st.isFile() && minimatch(childRel, include.pattern, { dot: true })) found.push(Uri.file(abs));
    }
  };
  await walk(base, '');
  return found;
}

/** workspace.getConfiguration: one in-memory store per section, set by tests with `setConfiguration`. */
const configuration = new Map<string, unknown>();
const configChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();

export function setConfiguration(key: string, value: unknown): void {
  if (value === undefined) configuration.delete(key);
  else configuration.set(key, value);
  configChanged.fire({ affectsConfiguration: (s) => key === s || key.startsWith(`${s}.`) });
}

// ---- open editors: a document's text may differ from the disk (unsaved changes) -----------------------------

/** A position in a document, as the offset VS Code's positionAt would turn it into (only offsets are used). */
export class Range {
  constructor(
    readonly start: number,
    readonly end: number,
  ) {}
}

/** A replacement of a document's text, applied by workspace.applyEdit as VS Code applies a WorkspaceEdit. */
export class WorkspaceEdit {
  readonly replacements: Array<{ uri: Uri; range: Range; text: string }> = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.replacements.push({ uri, range, text });
  }
}

/**
 * A file open in an editor (`openDocument`): its text is what the editor shows — possibly unsaved, or
 * decoded as VS Code decoded the bytes — and `save()` writes it to disk as UTF-8, as VS Code saves a
 * document whose encoding is UTF-8. Close it with `closeDocuments()`.
 */
export class ShimTextDocument {
  saved = 0;
  constructor(
    readonly uri: Uri,
    private text: string,
  ) {}
  getText(): string {
    return this.text;
  }
  positionAt(offset: number): number {
    return Math.max(0, Math.min(offset, this.text.length));
  }
  setText(text: string): void {
    this.text = text;
  }
  async save(): Promise<boolean> {
    await fs.writeFile(this.uri.fsPath, this.text, 'utf8');
    this.saved++;
    return true;
  }
}

export function openDocument(fsPath: string, text: string): ShimTextDocument {
  const doc = new ShimTextDocument(Uri.file(fsPath), text);
  workspace.textDocuments.push(doc);
  return doc;
}

export function closeDocuments(): void {
  workspace.textDocuments.length = 0;
}

export const workspace = {
  workspaceFolders: undefined as Array<{ uri: Uri; name: string; index: number }> | undefined,
  isTrusted: true,
  /** The documents open in editors: none unless a test opens one (openDocument); the tools then read and write the disk. */
  textDocuments: [] as ShimTextDocument[],
  /** As VS Code: every replacement applied to its open document (a document not open is not edited here). */
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    for (const r of edit.replacements) {
      const doc = workspace.textDocuments.find((d) => d.uri.fsPath === r.uri.fsPath);
      if (!doc) return false;
      const t = doc.getText();
      doc.setText(t.slice(0, r.range.start) + r.text + t.slice(r.range.end));
    }
    return true;
  },
  findFiles,
  /** As VS Code: the path relative to the workspace folder holding it, else the path as it is. */
  asRelativePath(at: Uri | string): string {
    const p = typeof at === 'string' ? at : at.fsPath;
    const folder = workspace.workspaceFolders?.find((f) => p.startsWith(`${f.uri.fsPath}/`));
    return folder ? p.slice(folder.uri.fsPath.length + 1) : p;
  },
  onDidChangeConfiguration: configChanged.event,
  getConfiguration(section?: string) {
    const full = (key: string) => (section ? `${section}.${key}` : key);
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        return configuration.has(full(key)) ? (configuration.get(full(key)) as T) : fallback;
      },
      has: (key: string) => configuration.has(full(key)),
      inspect: (key: string) => ({ key: full(key), workspaceValue: configuration.get(full(key)) }),
      update: async (key: string, value: unknown) => setConfiguration(full(key), value),
    };
  },
  fs: {
    createDirectory: async (uri: Uri) => void (await fs.mkdir(uri.fsPath, { recursive: true })),
    writeFile: async (uri: Uri, content: Uint8Array) => fs.writeFile(uri.fsPath, content),
    readFile: async (uri: Uri) => new Uint8Array(await fs.readFile(uri.fsPath)),
    stat: async (uri: Uri) => {
      // As VS Code's disk provider answers: a FIFO, a device or a socket is Unknown; a link adds SymbolicLink.
      const st = await fs.stat(uri.fsPath);
      const link = (await fs.lstat(uri.fsPath)).isSymbolicLink() ? FileType.SymbolicLink : 0;
      const type = st.isFile() ? FileType.File : st.isDirectory() ? FileType.Directory : FileType.Unknown;
      return { type: type | link, size: st.size, ctime: st.ctimeMs, mtime: st.mtimeMs };
    },
    // As VS Code's: an existing target is an error unless `overwrite`.
    copy: async (from: Uri, to: Uri, o: { overwrite?: boolean } = {}) => fs.copyFile(from.fsPath, to.fsPath, o.overwrite ? 0 : fsConstants.COPYFILE_EXCL),
    delete: async (uri: Uri) => fs.rm(uri.fsPath, { recursive: true, force: true }),
  },
};

// ---- language models -----------------------------------------------------------------------------------

export enum LanguageModelChatMessageRole {
  User = 1,
  Assistant = 2,
}

export class LanguageModelTextPart {
  constructor(public value: string) {}
}

export class LanguageModelToolCallPart {
  constructor(
    public callId: string,
    public name: string,
    public input: object,
  ) {}
}

export class LanguageModelToolResultPart {
  constructor(
    public callId: string,
    public content: unknown[],
  ) {}
}

export class LanguageModelToolResult {
  constructor(public content: unknown[]) {}
}

type MessageContent = string | Array<LanguageModelTextPart | LanguageModelToolCallPart | LanguageModelToolResultPart>;

export class LanguageModelChatMessage {
  content: Array<LanguageModelTextPart | LanguageModelToolCallPart | LanguageModelToolResultPart>;
  constructor(
    public role: LanguageModelChatMessageRole,
    content: MessageContent,
    public name?: string,
  ) {
    this.content = typeof content === 'string' ? [new LanguageModelTextPart(content)] : content;
  }
  static User(content: MessageContent, name?: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, content, name);
  }
  static Assistant(content: MessageContent, name?: string): LanguageModelChatMessage {
    return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, content, name);
  }
}

export class LanguageModelError extends Error {
  constructor(
    message?: string,
    readonly code = '',
  ) {
    super(message);
    this.name = 'LanguageModelError';
  }
  static NoPermissions(message?: string) {
    return new LanguageModelError(message, 'NoPermissions');
  }
  static Blocked(message?: string) {
    return new LanguageModelError(message, 'Blocked');
  }
  static NotFound(message?: string) {
    return new LanguageModelError(message, 'NotFound');
  }
}

export enum LanguageModelChatToolMode {
  Auto = 1,
  Required = 2,
}

/** The tools other extensions registered (`lm.tools`), with what invoking them does; set by tests. */
export interface ShimTool {
  name: string;
  description: string;
  inputSchema?: object;
  invoke: (input: object, token: CancellationToken) => Promise<string> | string;
}
const tools: ShimTool[] = [];

export function setTools(list: ShimTool[]): void {
  tools.splice(0, tools.length, ...list);
}

export const lm = {
  get tools() {
    return tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema, tags: [] }));
  },
  async invokeTool(name: string, options: { input: object }, token: CancellationToken) {
    const t = tools.find((x) => x.name === name);
    if (!t) throw new Error(`Tool "${name}" is not registered`);
    return new LanguageModelToolResult([new LanguageModelTextPart(await t.invoke(options.input, token))]);
  },
  selectChatModels: async () => [],
};

// ---- chat ----------------------------------------------------------------------------------------------

export class ChatRequestTurn {
  constructor(
    readonly prompt: string,
    readonly command: string | undefined,
    readonly references: unknown[],
    readonly participant: string,
    readonly toolReferences: unknown[] = [],
  ) {}
}

export class ChatResponseTurn {
  constructor(
    readonly response: unknown[],
    readonly result: { metadata?: Record<string, unknown>; errorDetails?: { message: string } },
    readonly participant: string,
    readonly command?: string,
  ) {}
}

export class MarkdownString {
  isTrusted = false;
  supportThemeIcons = false;
  supportHtml = false;
  constructor(
    public value = '',
    supportThemeIcons = false,
  ) {
    this.supportThemeIcons = supportThemeIcons;
  }
  appendMarkdown(v: string): this {
    this.value += v;
    return this;
  }
  appendText(v: string): this {
    this.value += v.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
    return this;
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

// ---- window, commands ----------------------------------------------------------------------------------

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

/** Every status bar item and output channel created, for tests to inspect. */
export const created = {
  statusBarItems: [] as Array<Record<string, unknown>>,
  outputChannels: [] as Array<{ name: string; lines: string[] }>,
};

function outputChannel(name: string) {
  const rec = { name, lines: [] as string[] };
  created.outputChannels.push(rec);
  const line = (level: string) => (msg: unknown) => rec.lines.push(`[${level}] ${String(msg)}`);
  return {
    name,
    logLevel: 2,
    onDidChangeLogLevel: new EventEmitter<number>().event,
    trace: line('trace'),
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    append: (v: string) => rec.lines.push(v),
    appendLine: (v: string) => rec.lines.push(v),
    replace: (v: string) => rec.lines.splice(0, rec.lines.length, v),
    clear: () => rec.lines.splice(0),
    show: () => undefined,
    hide: () => undefined,
    dispose: () => undefined,
    /** All lines so far (shim only). */
    lines: rec.lines,
  };
}

export const window = {
  createOutputChannel: (name: string) => outputChannel(name),
  createStatusBarItem(id?: string, alignment?: StatusBarAlignment, priority?: number) {
    const item: Record<string, unknown> = { id, alignment, priority, text: '', visible: false };
    item.show = () => (item.visible = true);
    item.hide = () => (item.visible = false);
    item.dispose = () => (item.disposed = true);
    created.statusBarItems.push(item);
    return item;
  },
  showInformationMessage: async () => undefined,
  showWarningMessage: async () => undefined,
  showErrorMessage: async () => undefined,
  showTextDocument: async () => undefined,
};

const commandRegistry = new Map<string, (...args: unknown[]) => unknown>();

export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown) {
    commandRegistry.set(id, fn);
    return new Disposable(() => commandRegistry.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]) {
    const fn = commandRegistry.get(id);
    if (!fn) throw new Error(`command '${id}' not found`);
    return fn(...args);
  },
  getCommands: async () => [...commandRegistry.keys()],
};

export const env = { language: 'en', appName: 'Visual Studio Code (rawr unit shim)', machineId: 'unit-test' };
export const version = '1.104.0';
