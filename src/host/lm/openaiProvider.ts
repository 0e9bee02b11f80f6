/**
 * "Any model": a vscode.LanguageModelChatProvider (vendor `rawr-openai`) for any OpenAI-compatible
 * chat-completions server — LM Studio, llama.cpp, vLLM, Ollama, OpenAI itself — so @rawr works in a
 * VS Code without Copilot.
 *
 * Configuration (re-read on change; the provider then fires onDidChangeLanguageModelChatInformation):
 * - `rawr.openai.baseUrl`: the API root including `/v1`, e.g. `http://127.0.0.1:1234/v1`;
 * - `rawr.openai.models`: `[{id, name?, contextWindow, maxOutputTokens?, toolCalling?}]`, each entry
 *   validated on its own (a bad entry is skipped with a warning in the log, never a crash).
 *   `contextWindow` is reported as the model's `maxInputTokens`; `maxOutputTokens` (when set) is also sent
 *   as `max_tokens`; `toolCalling: false` stops tools from being sent to that model;
 * - the API key lives only in SecretStorage (`rawr.openai.apiKey`, set with the command
 *   "Rawr: Set OpenAI-Compatible API Key"). Without one the placeholder key `not-needed` is sent: the
 *   openai client insists on a string, and keyless local servers ignore the Authorization header.
 *   The stored key is withheld (placeholder sent, warning logged) when the effective base URL comes from
 *   workspace or folder settings and differs from the user setting: a cloned repository must not be able
 *   to point the user's key at its own server.
 */
import OpenAI from 'openai';
import * as vscode from 'vscode';
import * as z from 'zod';
import { toOpenAIMessages, toOpenAITools, toToolChoice } from './convert';
import { estimateTokens, OpenAIChatError, streamChat, toOpenAIChatError } from './openaiChat';
import { TokenCalibration } from './tokenCalibration';
import { isContextOverflow } from '../participant/overflow';

export const OPENAI_VENDOR = 'rawr-openai';
export const OPENAI_KEY_SECRET = 'rawr.openai.apiKey';
export const SET_KEY_COMMAND = 'rawr.setOpenAIKey';
/** Sent as the API key when none is stored (keyless local servers). */
export const NO_KEY_PLACEHOLDER = 'not-needed';

export const OpenAIModelEntrySchema = z.object({
  id: z.string().trim().min(1),
  name: z.string().trim().min(1).optional(),
  contextWindow: z.number().int().positive(),
  maxOutputTokens: z.number().int().positive().optional(),
  toolCalling: z.boolean().optional(),
});
export type OpenAIModelEntry = z.infer<typeof OpenAIModelEntrySchema>;

const BaseUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:1234/v1' });

export interface OpenAIProviderConfig {
  baseUrl: string | undefined;
  models: OpenAIModelEntry[];
  /** Why entries or the base URL were rejected; logged once per change. */
  problems: string[];
  /** The effective base URL is set by the workspace (or a folder) and differs from the user setting. */
  baseUrlFromWorkspace?: boolean;
}

/** Reads and validates the settings (pure apart from the getters passed in; exported for tests). */
export function parseOpenAIConfig(rawBaseUrl: unknown, rawModels: unknown): OpenAIProviderConfig {
  const problems: string[] = [];
  let baseUrl: string | undefined;
  if (typeof rawBaseUrl === 'string' && rawBaseUrl.trim() !== '') {
    const r = BaseUrlSchema.safeParse(rawBaseUrl.trim());
    if (r.success) baseUrl = r.data.replace(/\/+$/, '');
    else problems.push(`rawr.openai.baseUrl "${rawBaseUrl}" ${r.error.issues[0]?.message ?? 'is invalid'}; no models offered.`);
  } else if (rawBaseUrl !== undefined && rawBaseUrl !== null && rawBaseUrl !== '') {
    problems.push(`rawr.openai.baseUrl must be a string, got ${JSON.stringify(rawBaseUrl)}; no models offered.`);
  }
  const models: OpenAIModelEntry[] = [];
  if (rawModels !== undefined && rawModels !== null && !Array.isArray(rawModels)) {
    problems.push(`rawr.openai.models must be an array of {id, name?, contextWindow, maxOutputTokens?, toolCalling?}; ignored.`);
  } else {
    const seen = new Set<string>();
    ((rawModels as unknown[] | undefined) ?? []).forEach((raw, i) => {
      const r = OpenAIModelEntrySchema.safeParse(raw);
      if (!r.success) {
        const why = r.error.issues.map((iss) => `${iss.path.join('.') || 'entry'}: ${iss.message}`).join('; ');
        problems.push(`rawr.openai.models[${i}] skipped (${why}): ${JSON.stringify(raw)}`);
      } else if (seen.has(r.data.id)) {
        problems.push(`rawr.openai.models[${i}] skipped: duplicate id "${r.data.id}".`);
      } else {
        seen.add(r.data.id);
        models.push(r.data);
      }
    });
  }
  if (!baseUrl && models.length > 0 && problems.length === 0) problems.push('rawr.openai.models is set but rawr.openai.baseUrl is empty; no models offered.');
  return { baseUrl, models, problems };
}

/** What VS Code is told about one configured model. */
export function modelInformation(entry: OpenAIModelEntry, baseUrl: string): vscode.LanguageModelChatInformation {
  let host = baseUrl;
  try {
    host = new URL(baseUrl).host;
  } catch {
    /* keep the raw string */
  }
  const info: vscode.LanguageModelChatInformation & { isUserSelectable: boolean } = {
    id: entry.id,
    name: entry.name ?? entry.id,
    family: entry.id,
    version: 'openai-compatible',
    detail: host,
    tooltip: `${entry.id} via the OpenAI-compatible server at ${baseUrl}`,
    maxInputTokens: entry.contextWindow,
    maxOutputTokens: entry.maxOutputTokens ?? Math.min(4096, Math.max(1, Math.floor(entry.contextWindow / 4))),
    capabilities: { toolCalling: entry.toolCalling ?? true, imageInput: false },
    // Not in the 1.104 typings, honoured by newer VS Code: lets the model appear in the Chat model picker.
    isUserSelectable: true,
  };
  return info;
}

class OpenAICompatibleProvider implements vscode.LanguageModelChatProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  private config: OpenAIProviderConfig = { baseUrl: undefined, models: [], problems: [] };
  private apiKey: string | undefined;
  private client: { key: string; client: OpenAI } | undefined;
  private loaded: Promise<void> = Promise.resolve();
  /** The estimate's correction per model, learnt from the server's own usage counts (see tokenCalibration.ts). */
  readonly calibration = new TokenCalibration();
  /** Base URLs whose server rejected `stream_options`: not asked for usage again (they keep the estimate). */
  private readonly usageRejectedBy = new Set<string>();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Re-read settings and the secret; fires the change event when done. */
  reload(why: string): Promise<void> {
    this.loaded = (async () => {
      const cfg = vscode.workspace.getConfiguration('rawr.openai');
      const previousUrl = this.config.baseUrl;
      this.config = parseOpenAIConfig(cfg.get<unknown>('baseUrl'), cfg.get<unknown>('models'));
      if (this.config.baseUrl !== previousUrl) this.calibration.reset(); // another server, other tokenizers
      const where = cfg.inspect<unknown>('baseUrl');
      const local = where?.workspaceFolderValue ?? where?.workspaceValue;
      this.config.baseUrlFromWorkspace = local !== undefined && local !== where?.globalValue;
      try {
        this.apiKey = (await this.secrets.get(OPENAI_KEY_SECRET)) || undefined;
      } catch (e) {
        this.apiKey = undefined;
        this.log.warn(`rawr-openai: cannot read the API key from SecretStorage: ${(e as Error).message}`);
      }
      this.client = undefined;
      for (const p of this.config.problems) this.log.warn(`rawr-openai: ${p}`);
      if (this.apiKey && this.config.baseUrlFromWorkspace && this.config.baseUrl) {
        this.log.warn(
          `rawr-openai: rawr.openai.baseUrl (${this.config.baseUrl}) comes from workspace settings: the stored API key is not sent there ("${NO_KEY_PLACEHOLDER}" is). Set the URL in your user settings to use the key.`,
        );
      }
      this.log.info(
        `rawr-openai (${why}): ${this.config.models.length} model(s)${this.config.baseUrl ? ` at ${this.config.baseUrl}` : ''}` +
          `${this.config.models.length ? ` [${this.config.models.map((m) => m.id).join(', ')}]` : ''}, API key ${this.usableKey() ? 'set' : `not sent ("${NO_KEY_PLACEHOLDER}" instead)`}`,
      );
      this.changed.fire();
    })();
    return this.loaded;
  }

  dispose(): void {
    this.changed.dispose();
  }

  async provideLanguageModelChatInformation(): Promise<vscode.LanguageModelChatInformation[]> {
    await this.loaded;
    const { baseUrl, models } = this.config;
    if (!baseUrl) return [];
    return models.map((m) => modelInformation(m, baseUrl));
  }

  /** The stored key, unless the base URL is workspace-controlled (see the file comment). */
  private usableKey(): string | undefined {
    return this.config.baseUrlFromWorkspace ? undefined : this.apiKey;
  }

  private clientFor(baseUrl: string): OpenAI {
    const apiKey = this.usableKey() ?? NO_KEY_PLACEHOLDER;
    const key = `${baseUrl}\n${apiKey}`;
    if (!this.client || this.client.key !== key) {
      this.client = { key, client: new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 2 }) };
    }
    return this.client.client;
  }

  async provideLanguageModelChatResponse(
    model: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    await this.loaded;
    const { baseUrl } = this.config;
    const entry = this.config.models.find((m) => m.id === model.id);
    if (!baseUrl || !entry) {
      throw vscode.LanguageModelError.NotFound(`${OPENAI_VENDOR}/${model.id} is not configured (check rawr.openai.baseUrl and rawr.openai.models).`);
    }
    const converted = toOpenAIMessages(messages);
    for (const n of converted.notes) this.log.info(`rawr-openai ${model.id}: ${n}`);
    const tools = entry.toolCalling === false ? undefined : toOpenAITools(options.tools);
    if (entry.toolCalling === false && options.tools?.length)
      this.log.info(`rawr-openai ${model.id}: toolCalling is false: ${options.tools.length} tool(s) not sent.`);
    const temperature = options.modelOptions?.temperature;
    // rawr's estimate of this very request, to set against the server's own count when it reports one.
    const estimate = estimateTokens(converted.messages) + (tools?.length ? estimateTokens(JSON.stringify(tools)) : 0);

    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      if (token.isCancellationRequested) return;
      for await (const part of streamChat(this.clientFor(baseUrl), {
        model: entry.id,
        messages: converted.messages,
        tools,
        toolChoice: toToolChoice(options.toolMode, !!tools),
        maxTokens: entry.maxOutputTokens,
        temperature: typeof temperature === 'number' ? temperature : undefined,
        includeUsage: !this.usageRejectedBy.has(baseUrl),
        onUsageRejected: (why) => {
          this.usageRejectedBy.add(baseUrl);
          this.log.warn(
            `rawr-openai: ${baseUrl} rejects stream_options.include_usage (${why}); asked again without it. Token counts stay rawr's estimate for this server.`,
          );
        },
        signal: abort.signal,
      })) {
        if (token.isCancellationRequested) return;
        if (part.type === 'text') {
          progress.report(new vscode.LanguageModelTextPart(part.text));
        } else if (part.type === 'usage') {
          const r = this.calibration.observe(model.id, estimate, part.promptTokens);
          if (r.changed) {
            this.log.info(
              `rawr-openai ${model.id}: token counts calibrated from the server's usage: ×${r.calibration.factor.toFixed(2)} ` +
                `(the server counted ${part.promptTokens} prompt tokens where the estimate was ${estimate})`,
            );
          }
        } else {
          const input = part.input;
          if (input === null || typeof input !== 'object' || Array.isArray(input)) {
            throw new Error(
              `${OPENAI_VENDOR}/${model.id}: the model called tool "${part.name}" with arguments that are not a JSON object: ${JSON.stringify(input)}`,
            );
          }
          progress.report(new vscode.LanguageModelToolCallPart(part.id, part.name, input));
        }
      }
    } catch (err) {
      if (token.isCancellationRequested) return; // cancelled: VS Code already knows
      const e = toOpenAIChatError(err, baseUrl);
      this.log.error(`rawr-openai ${model.id}: ${e.message}`);
      throw this.toLanguageModelError(e, model.id, baseUrl);
    } finally {
      sub.dispose();
    }
  }

  private toLanguageModelError(e: OpenAIChatError, id: string, baseUrl: string): Error {
    switch (e.kind) {
      case 'auth':
        return vscode.LanguageModelError.NoPermissions(
          `${OPENAI_VENDOR}/${id}: the server at ${baseUrl} rejected the API key (HTTP 401: ${e.serverMessage}). ` +
            (this.apiKey && this.config.baseUrlFromWorkspace
              ? 'The stored key was not sent because rawr.openai.baseUrl comes from workspace settings: set the URL in your user settings.'
              : 'Set it with "Rawr: Set OpenAI-Compatible API Key".'),
        );
      case 'forbidden':
        return vscode.LanguageModelError.NoPermissions(`${OPENAI_VENDOR}/${id}: access denied by ${baseUrl} (HTTP 403: ${e.serverMessage}).`);
      case 'not_found':
        return vscode.LanguageModelError.NotFound(
          `${OPENAI_VENDOR}/${id}: not found at ${baseUrl} (HTTP 404: ${e.serverMessage}). Check the model id and that the base URL ends in /v1.`,
        );
      case 'aborted':
      case 'bad_request':
      case 'connection':
      case 'invalid_tool_call':
      case 'other':
      case 'rate_limit':
      case 'server':
        if (e.status === 451) return vscode.LanguageModelError.Blocked(`${OPENAI_VENDOR}/${id}: blocked by the server (HTTP 451: ${e.serverMessage}).`);
        // Named with OpenAI's code whatever the server's wording, so @rawr's overflow recovery (and anyone) can tell.
        if (e.status === 400 && ((e.cause as { code?: unknown } | undefined)?.code === 'context_length_exceeded' || isContextOverflow(e.serverMessage))) {
          return new vscode.LanguageModelError(
            `${OPENAI_VENDOR}/${id}: the request is too long for the model's context (HTTP 400 context_length_exceeded: ${e.serverMessage}).`,
          );
        }
        return new Error(`${OPENAI_VENDOR}/${id} (${baseUrl}): ${e.message}`);
    }
  }

  /** The chars/4 estimate, scaled by what the server's own counts taught about this model (tokenCalibration.ts). */
  async provideTokenCount(model: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    const estimate = typeof text === 'string' ? estimateTokens(text) : estimateTokens(toOpenAIMessages([text]).messages);
    return this.calibration.scale(model.id, estimate);
  }
}

/**
 * Registers the `rawr-openai` provider and the `rawr.setOpenAIKey` command, watches the settings and the
 * secret, and asks VS Code for the vendor's models once so the Chat view knows them. Dispose to undo.
 */
export interface RegisteredOpenAIProvider extends vscode.Disposable {
  /**
   * Changes whenever the token counts of `model` change meaning (a new calibration): per-message counts
   * cached under another epoch must be counted again. Always 0 for other vendors' models.
   */
  countEpoch(model: { vendor: string; id: string }): number;
  /** How this provider counts `model`'s tokens, for /status; undefined for other vendors' models. */
  describeCounts(model: { vendor: string; id: string }): string | undefined;
}

export function registerOpenAIProvider(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RegisteredOpenAIProvider {
  const provider = new OpenAICompatibleProvider(context.secrets, log);
  const disposables: vscode.Disposable[] = [provider];
  void provider.reload('activation');
  disposables.push(vscode.lm.registerLanguageModelChatProvider(OPENAI_VENDOR, provider));
  disposables.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('rawr.openai')) void provider.reload('settings changed');
    }),
    context.secrets.onDidChange((e) => {
      if (e.key === OPENAI_KEY_SECRET) void provider.reload('API key changed');
    }),
    vscode.commands.registerCommand(SET_KEY_COMMAND, async () => {
      const value = await vscode.window.showInputBox({
        title: 'Rawr: OpenAI-compatible API key',
        prompt: 'Stored in VS Code SecretStorage. Leave empty and press Enter to delete the stored key.',
        password: true,
        ignoreFocusOut: true,
      });
      if (value === undefined) return; // Escape
      if (value.trim() === '') {
        await context.secrets.delete(OPENAI_KEY_SECRET);
        void vscode.window.showInformationMessage('Rawr: OpenAI-compatible API key deleted.');
      } else {
        await context.secrets.store(OPENAI_KEY_SECRET, value.trim());
        void vscode.window.showInformationMessage('Rawr: OpenAI-compatible API key stored.');
      }
    }),
  );
  // The Chat view only learns a vendor's models when something asks (see the e2e recipe).
  // (provideLanguageModelChatInformation waits for the first reload, so this sees the configured models.)
  vscode.lm.selectChatModels({ vendor: OPENAI_VENDOR }).then(
    (ms) => log.info(`rawr-openai: models visible to VS Code: [${ms.map((m) => m.id).join(', ')}]`),
    (e: unknown) => log.warn(`rawr-openai: selectChatModels failed: ${(e as Error).message}`),
  );
  const all = vscode.Disposable.from(...disposables);
  return {
    dispose: () => all.dispose(),
    countEpoch: (model) => (model.vendor === OPENAI_VENDOR ? provider.calibration.get(model.id).epoch : 0),
    describeCounts: (model) => {
      if (model.vendor !== OPENAI_VENDOR) return undefined;
      const c = provider.calibration.get(model.id);
      return c.from
        ? `rawr's estimate ×${c.factor.toFixed(2)}, calibrated from the server's usage (it counted ${c.from.promptTokens} prompt tokens where the estimate was ${c.from.estimate})`
        : "rawr's estimate (about 4 characters per token): the server has not reported a usage count to calibrate it yet";
    },
  };
}
