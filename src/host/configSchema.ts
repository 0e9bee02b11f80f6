/**
 * The Settings-UI contribution (`contributes.configuration` in package.json), derived from the core's
 * settings schema so the two cannot drift: one property per knob, `rawr.<camelCase of the snake knob>` (or
 * a readable name, see RENAMED),
 * with the JSON Schema zod derives from the knob's validator (type, enum, minimum/maximum, item
 * constraints), the default from DEFAULT_SETTINGS, the description from SETTING_DOCS and a stable order.
 * Plus the host-only knobs (not part of the policy file): `rawr.tools.allowed`, `rawr.judgment.model`.
 *
 * vscode-free: used by scripts/gen-config.mjs (which writes package.json) and by unit tests.
 */
import * as z from 'zod';
import { BOUNDARY_KINDS, type BoundaryKind } from '../core/signals/types';
import { DEFAULT_ALLOWED_TOOLS } from './tools/catalog';
import { DEFAULT_SETTINGS, MID_TURN_POLICIES, MODES, SETTING_DOCS, SettingsSchema, type SettingKey } from '../core/settings/schema';

export const CONFIG_SECTION = 'rawr';
export const CONFIG_ID = 'rawr';
export const CONFIG_TITLE = 'Rawr';

/** `early_percent_remaining_lt` → `earlyPercentRemainingLt`. */
export function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `earlyPercentRemainingLt` → `early_percent_remaining_lt`. */
export function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The policy knobs, in schema order. */
export const SETTING_KEYS = Object.keys(SettingsSchema.shape) as SettingKey[];

/**
 * Knobs whose VS Code name is not the camelCase of the knob. The Settings UI titles a setting after its
 * name (`earlyPercentRemainingLt` shows as "Early Percent Remaining Lt"); `tiers.earlyBelowPercent`
 * shows as "Tiers: Early Below Percent". The old names stay readable (deprecated, see LEGACY_NAMES).
 */
const RENAMED: Partial<Record<SettingKey, string>> = {
  early_percent_remaining_lt: 'tiers.earlyBelowPercent',
  ready_percent_remaining_lt: 'tiers.readyBelowPercent',
  asap_percent_remaining_lt: 'tiers.asapBelowPercent',
  emergency_percent_remaining_lt: 'tiers.emergencyBelowPercent',
};

/** A knob's VS Code name below `rawr.` (`tiers.earlyBelowPercent`, `cooldownTurns`). */
export function vscodeKey(knob: SettingKey): string {
  return RENAMED[knob] ?? camel(knob);
}

/**
 * Names below `rawr.` that renamed knobs had before (the camelCase of the knob): still contributed, marked
 * deprecated (the Settings UI hides them unless set), and still read when the new name is not set, so a
 * settings.json written for an older rawr keeps working.
 */
export const LEGACY_NAMES: ReadonlyArray<{ name: string; knob: SettingKey }> = (Object.keys(RENAMED) as SettingKey[]).map((knob) => ({
  name: camel(knob),
  knob,
}));

/** Host-only settings (camel keys below `rawr.`): read by the extension host, not part of the policy file. */
export const HOST_KEYS = { toolsAllowed: 'tools.allowed', judgmentModel: 'judgment.model' } as const;

/** Descriptions of enum values, shown by the Settings UI and settings.json completion. */
export const ENUM_DESCRIPTIONS = {
  mode: {
    off: 'Do nothing: no decisions, no annotations.',
    tag: 'Only note in the chat where rawr would compact; never compact.',
    suggest: 'Offer a "Compact now" button when rawr would compact.',
    auto: 'Compact at the end of a phase: a heads-up to the agent, its continuation packet, the compaction, the handoff.',
  } satisfies Record<(typeof MODES)[number], string>,
  packet_author: {
    agent: 'The agent writes its own continuation packet (the agent packet).',
    watcher: 'Rawr assembles the packet from the recorded trail (the watcher packet).',
  } satisfies Record<'agent' | 'watcher', string>,
  mid_turn_policy: {
    golden_path: 'Run the full sequence at tool-loop boundaries inside a long turn.',
    emergency_only: 'Inside a turn, compact only in the emergency tier.',
    off: 'Never compact inside a turn; only at turn completion.',
  } satisfies Record<(typeof MID_TURN_POLICIES)[number], string>,
  boundary: {
    commit: 'A new commit on the current branch (git or a terminal/tool `git commit`).',
    pr_checkpoint: 'A push, an opened pull request, a PR marked ready or merged.',
    plan_checkpoint: 'A plan step completed (rawr_update_plan).',
    plan_update: 'A plan changed without completing a step (weak: never enough on its own).',
    agent_done: 'The agent said it finished the task (after doing work in the turn).',
    concluding: 'The agent is concluding a phase ("in summary", "next steps", …).',
    topic_shift: 'The agent moves to a new topic or phase ("moving on to", …).',
    turn_complete: 'A user turn ended (the agent finished answering).',
  } satisfies Record<BoundaryKind, string>,
};

type JsonSchema = Record<string, unknown>;

/** The JSON Schema of one knob, as zod derives it (no `$schema` marker). */
function knobSchema(key: SettingKey): JsonSchema {
  const js = z.toJSONSchema(SettingsSchema.shape[key], { io: 'input', unrepresentable: 'throw' }) as JsonSchema;
  delete js.$schema;
  return addEnumDescriptions(js, key);
}

/**
 * One enum style in the Settings UI: every value shows as a capitalised phrase (`golden_path` → "Golden
 * path", `auto` → "Auto"), whatever its spelling in settings.json (values are kept: users' settings name them).
 */
export function enumLabel(value: string): string {
  const words = value.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Adds `enumDescriptions` and `enumItemLabels` next to every `enum` (recursively: the boundary lists' items). */
function addEnumDescriptions(node: JsonSchema, key: SettingKey): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([p, s]) => [p, addEnumDescriptions(s, key)]));
    } else if (k === 'items' && v && typeof v === 'object' && !Array.isArray(v)) {
      out[k] = addEnumDescriptions(v as JsonSchema, key);
    } else {
      out[k] = v;
    }
  }
  if (Array.isArray(node.enum)) {
    const values = node.enum as string[];
    const isBoundary = values.every((v) => (BOUNDARY_KINDS as readonly string[]).includes(v));
    const table = (isBoundary ? ENUM_DESCRIPTIONS.boundary : (ENUM_DESCRIPTIONS as Record<string, Record<string, string>>)[key]) as
      Record<string, string> | undefined;
    if (!table) throw new Error(`configSchema: no enum descriptions for ${key}`);
    out.enumDescriptions = values.map((v) => {
      const d = table[v];
      if (!d) throw new Error(`configSchema: no description for ${key} value "${v}"`);
      return d;
    });
    out.enumItemLabels = values.map(enumLabel);
  }
  return out;
}

/** The host-only properties (full keys). */
function hostProperties(): Record<string, JsonSchema> {
  return {
    [`${CONFIG_SECTION}.${HOST_KEYS.toolsAllowed}`]: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      uniqueItems: true,
      default: [...DEFAULT_ALLOWED_TOOLS],
      markdownDescription:
        'Language-model tools the @rawr agent may call, by name or glob (`*` matches any characters). The default is rawr\'s own tool set (read, list, search, create, edit, git status/diff, terminal). Add Copilot\'s or MCP tools with globs (e.g. `["rawr_*", "copilot_*", "mcp_github_*"]`), or list fewer to restrict. `rawr_update_plan` and `rawr_write_scratch` are always offered. Writing and executing tools ask before they run; in Restricted Mode only reading tools are offered.',
    },
    [`${CONFIG_SECTION}.${HOST_KEYS.judgmentModel}`]: {
      type: 'string',
      default: '',
      pattern: '^$|^[^/\\s]+/\\S+$',
      patternErrorMessage: "Use vendor/id (e.g. copilot/gpt-4o-mini), or leave empty for the chat's model.",
      markdownDescription:
        'The model for rawr\'s short check before a compaction ("is this a good moment?"), as `vendor/id` (e.g. `copilot/gpt-4o-mini`: a small, cheap model is enough). Empty: the model you chat with.',
    },
  };
}

/**
 * The handful of settings a person sets first, in plain words: what rawr does (mode), which tools the agent
 * may use, the judgment's model and idle compaction. Shown on top, in the "Rawr" category; every other knob
 * of the engine is under "Advanced" (the OpenAI-compatible endpoint has its own category in package.json).
 */
export const FIRST_SETTINGS: ReadonlyArray<string> = [
  `${CONFIG_SECTION}.mode`,
  `${CONFIG_SECTION}.${HOST_KEYS.toolsAllowed}`,
  `${CONFIG_SECTION}.${HOST_KEYS.judgmentModel}`,
  `${CONFIG_SECTION}.idleCompactMinutes`,
];

/** The ids and titles of rawr's generated categories (the endpoint's, `rawr.openai`, is written by hand). */
export const CATEGORIES = {
  first: { id: CONFIG_ID, title: CONFIG_TITLE, order: 1 },
  advanced: { id: `${CONFIG_ID}.advanced`, title: 'Advanced', order: 3 },
} as const;

/**
 * Every setting reads in a window (the host reads `getConfiguration('rawr')` without a folder), so each
 * declares `window`: the Settings UI then offers it in User and Workspace settings, not per folder.
 */
const SCOPE = 'window';

/**
 * Every property rawr's generated categories contribute, keyed by full setting name (`rawr.…`): the policy
 * knobs in schema order, the host-only knobs, the deprecated old names. Pure and deterministic: package.json's
 * contribution must equal it (unit test). `order` is set per category by configurationContribution().
 */
export function configurationProperties(): Record<string, object> {
  const props: Record<string, object> = {};
  SETTING_KEYS.forEach((key) => {
    props[`${CONFIG_SECTION}.${vscodeKey(key)}`] = {
      ...knobSchema(key),
      default: structuredClone(DEFAULT_SETTINGS[key]),
      markdownDescription: docMarkdown(SETTING_DOCS[key]),
      scope: SCOPE,
    };
  });
  for (const [k, v] of Object.entries(hostProperties())) props[k] = { ...v, scope: SCOPE };
  LEGACY_NAMES.forEach(({ name, knob }) => {
    const now = `${CONFIG_SECTION}.${vscodeKey(knob)}`;
    props[`${CONFIG_SECTION}.${name}`] = {
      ...knobSchema(knob),
      default: structuredClone(DEFAULT_SETTINGS[knob]),
      markdownDescription: docMarkdown(SETTING_DOCS[knob]),
      markdownDeprecationMessage: `Renamed to \`#${now}#\`. This name is still read when \`${now}\` is not set.`,
      scope: SCOPE,
    };
  });
  return props;
}

/**
 * SETTING_DOCS are plain text; as Markdown, `<name>` would be taken for an HTML tag and vanish, so angle
 * brackets are escaped.
 */
export function docMarkdown(doc: string): string {
  return doc.replace(/[<>]/g, '\\$&');
}

type Category = { id: string; title: string; order: number; properties: Record<string, object> };

/** Rawr's generated categories of `contributes.configuration`: the first settings, then "Advanced". */
export function configurationContribution(): Category[] {
  const all = configurationProperties();
  const pick = (keys: string[]) => Object.fromEntries(keys.map((k, order) => [k, { ...all[k], order }]));
  const first = FIRST_SETTINGS.filter((k) => k in all);
  const rest = Object.keys(all).filter((k) => !first.includes(k));
  return [
    { ...CATEGORIES.first, properties: pick(first) },
    { ...CATEGORIES.advanced, properties: pick(rest) },
  ];
}

const OUR_IDS: ReadonlySet<unknown> = new Set(Object.values(CATEGORIES).map((c) => c.id));

/**
 * `contributes.configuration` with rawr's generated categories put in: the first one where an earlier one
 * was (else at the start), "Advanced" last; every other object (the endpoint's category) is kept as it is. A
 * single object (the other form VS Code accepts) becomes a one-element array first.
 */
export function withRawrConfiguration(existing: unknown): object[] {
  const list: object[] = Array.isArray(existing) ? [...existing] : existing && typeof existing === 'object' ? [existing] : [];
  const [first, advanced] = configurationContribution();
  const at = Math.max(
    0,
    list.findIndex((o) => OUR_IDS.has((o as { id?: unknown }).id)),
  );
  const others = list.filter((o) => !OUR_IDS.has((o as { id?: unknown }).id));
  others.splice(Math.min(at, others.length), 0, first!);
  return [...others, advanced!];
}
