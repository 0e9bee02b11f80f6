/**
 * The rawr core process (docs/ARCHITECTURE.md#the-core-process): a language server, started by the extension with
 * vscode-languageclient over IPC, that hosts the workspace's single arbiter — a CoreService — and the
 * language features of the prompt files (promptLanguage.ts).
 *
 * initialize → initializationOptions `{ logDir, promptDirs }` (workspace override folder first, then the
 * shipped prompts folder) → CoreService(logDir, loadPromptSet(promptDirs)). Every CORE_METHODS request is
 * validated with zod (core/protocol/coreProtocol.ts, shared with the client) and delegated; a bad request is a JSON-RPC error naming the field, an
 * exception in the service is a JSON-RPC error with its message — the process never dies of a request.
 * If the process does die, the client starts a new one and each thread is rebuilt from its log on first
 * use (CoreService's cold replay), so nothing is lost.
 */
import * as lsp from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type * as z from 'zod';
import { loadPromptDirs } from '../core/prompts/fs';
import { CoreService } from '../core/service/coreService';
import { CORE_METHODS, describeZodError, InitOptionsSchema, PARAMS, type InitOptions } from '../core/protocol/coreProtocol';
import { PROMPT_FILE_NAME, promptCompletions, promptDiagnostics, promptHover } from './promptLanguage';

/** JSON-RPC error codes (LSP spec): invalid params, a request that failed, a server not initialized. */
const INVALID_PARAMS = -32602;
const REQUEST_FAILED = -32803;
const SERVER_NOT_INITIALIZED = -32002;

interface TextDocumentPositionParams {
  textDocument: { uri: string };
  position: { line: number; character: number };
}

const connection = lsp.createConnection(lsp.ProposedFeatures.all);
const documents = new lsp.TextDocuments(TextDocument);
let core: CoreService | undefined;
let options: InitOptions | undefined;

const fileNameOf = (uri: string): string => {
  try {
    return decodeURIComponent(uri.replace(/[?#].*$/, '').replace(/^.*\//, ''));
  } catch {
    return uri.replace(/^.*\//, '');
  }
};

connection.onInitialize(async (params: { initializationOptions?: unknown }) => {
  const parsed = InitOptionsSchema.safeParse(params.initializationOptions);
  if (!parsed.success) {
    // Without a log folder there is no arbiter; say why instead of failing later on every request.
    throw new lsp.ResponseError(INVALID_PARAMS, `rawr core: bad initializationOptions (${describeZodError(parsed.error)})`);
  }
  options = parsed.data;
  // After a restart the client passes the configuration it last set; on the first start, the files
  // (their problems are the extension's to report, and the editor shows them as diagnostics).
  core = new CoreService(options.logDir, options.config ?? (await loadPromptDirs(options.promptDirs)));
  return {
    capabilities: {
      textDocumentSync: lsp.TextDocumentSyncKind.Incremental,
      hoverProvider: true,
      completionProvider: { triggerCharacters: [':', ' ', '[', ',', '-'] },
    },
    serverInfo: { name: 'rawr-core', version: '0.1.0' },
  };
});

connection.onInitialized(() => {
  connection.console.info(`rawr core ${process.pid} ready (logs in ${options?.logDir})`);
});

// ---- the arbiter ---------------------------------------------------------------------------------

/**
 * Registers one CORE_METHODS request: params validated by PARAMS[name], then `run` on the service.
 * Every failure becomes a JSON-RPC error response; nothing escapes to crash the process.
 */
function handle<K extends keyof typeof CORE_METHODS & keyof typeof PARAMS>(
  name: K,
  run: (service: CoreService, params: z.output<(typeof PARAMS)[K]>) => unknown,
): void {
  const method = CORE_METHODS[name];
  connection.onRequest(method, (raw: unknown) => {
    if (!core) return new lsp.ResponseError(SERVER_NOT_INITIALIZED, `${method}: the rawr core is not initialized`);
    const parsed = PARAMS[name].safeParse(raw);
    if (!parsed.success) return new lsp.ResponseError(INVALID_PARAMS, `${method}: invalid params: ${describeZodError(parsed.error)}`);
    try {
      const result = run(core, parsed.data as z.output<(typeof PARAMS)[K]>);
      return result === undefined ? null : result;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      connection.console.error(`${method} failed: ${message}`);
      return new lsp.ResponseError(REQUEST_FAILED, `${method} failed: ${message}`);
    }
  });
}

handle('configure', (s, p) => s.configure(p.config));
handle('apply', (s, p) => s.apply(p.threadId, p.inputs, p.rid));
handle('undo', (s, p) => s.undo(p.threadId, p.rid));
handle('snapshot', (s, p) => s.snapshot(p.threadId));
handle('listThreads', (s) => s.listThreads());
handle('exportLog', (s, p) => s.exportLog(p.threadId));
handle('pid', () => process.pid);

// ---- prompt-file language features ---------------------------------------------------------------

const isPromptFile = (uri: string) => PROMPT_FILE_NAME.test(fileNameOf(uri));

function validate(doc: TextDocument): void {
  if (!isPromptFile(doc.uri)) return;
  let diagnostics: ReturnType<typeof promptDiagnostics> = [];
  try {
    diagnostics = promptDiagnostics(doc.getText(), fileNameOf(doc.uri));
  } catch (err) {
    connection.console.error(`diagnostics for ${doc.uri} failed: ${(err as Error).message}`);
  }
  void connection.sendDiagnostics({ uri: doc.uri, diagnostics });
}

// onDidChangeContent also fires when a document is opened.
documents.onDidChangeContent((e: { document: TextDocument }) => validate(e.document));
documents.onDidClose((e: { document: TextDocument }) => {
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});

connection.onHover((p: TextDocumentPositionParams) => {
  const doc = documents.get(p.textDocument.uri);
  if (!doc || !isPromptFile(doc.uri)) return null;
  return promptHover(doc.getText(), p.position.line, p.position.character, fileNameOf(doc.uri));
});

connection.onCompletion((p: TextDocumentPositionParams) => {
  const doc = documents.get(p.textDocument.uri);
  if (!doc || !isPromptFile(doc.uri)) return [];
  return promptCompletions(doc.getText(), p.position.line, p.position.character, fileNameOf(doc.uri));
});

// A bug must not take the arbiter down with it: log and keep serving (the request that hit it already
// got its error response).
process.on('uncaughtException', (err) => connection.console.error(`uncaught: ${err.stack ?? err.message}`));
process.on('unhandledRejection', (err) => connection.console.error(`unhandled rejection: ${String(err)}`));

connection.onShutdown(() => core?.dispose());
documents.listen(connection);
connection.listen();
