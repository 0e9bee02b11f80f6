/**
 * VS Code settings over the policy file: values the user set explicitly (user, workspace or folder
 * settings, camelCase keys below `rawr.`) replace the YAML frontmatter's values knob by knob, validated
 * by the core's resolveSettings with the YAML settings as the base, so a bad value in settings.json costs
 * only that knob (it keeps the YAML value) and is reported under its VS Code name.
 *
 * vscode-free (unit-tested); src/host/settings.ts gathers the explicit values with `inspect()`.
 */
import { resolveSettings, type SettingsIssue } from '../core/settings/load';
import type { Settings, SettingKey } from '../core/settings/schema';
import { CONFIG_SECTION, HOST_KEYS, LEGACY_NAMES, SETTING_KEYS, vscodeKey } from './configSchema';
import { DEFAULT_ALLOWED_TOOLS } from './tools/catalog';

const HOST_KEY_SET = new Set<string>(Object.values(HOST_KEYS));
const KNOB_BY_NAME = new Map<string, SettingKey>(SETTING_KEYS.map((k) => [vscodeKey(k), k]));
const KNOB_BY_LEGACY_NAME = new Map<string, SettingKey>(LEGACY_NAMES.map((l) => [l.name, l.knob]));

/**
 * The VS Code names below `rawr.` whose explicit values mergeExplicit reads: every knob's name, then the
 * deprecated names of renamed knobs.
 */
export const EXPLICIT_NAMES: readonly string[] = [...KNOB_BY_NAME.keys(), ...KNOB_BY_LEGACY_NAME.keys()];

/** `early_percent_remaining_lt` / `tiers.earlyBelowPercent` → `rawr.tiers.earlyBelowPercent`. */
export function settingName(key: string): string {
  const knob = KNOB_BY_NAME.get(key) ?? KNOB_BY_LEGACY_NAME.get(key) ?? (SETTING_KEYS.includes(key as SettingKey) ? (key as SettingKey) : undefined);
  return `${CONFIG_SECTION}.${knob ? vscodeKey(knob) : key}`;
}

/**
 * @param yamlSettings the settings of the policy file (already validated).
 * @param explicit explicitly set values by VS Code name below `rawr.` (`tiers.earlyBelowPercent`, or the
 *   deprecated `earlyPercentRemainingLt`, used only when the new name is not set), `undefined` = not set.
 * @returns the merged settings and one issue per rejected value; issue keys are full setting names as the
 *   user wrote them (`rawr.tiers.earlyBelowPercent`), messages name settings the same way.
 */
export function mergeExplicit(yamlSettings: Settings, explicit: Record<string, unknown>): { settings: Settings; issues: SettingsIssue[] } {
  const input: Record<string, unknown> = {};
  const issues: SettingsIssue[] = [];
  /** The full name each knob's value came from, for messages. */
  const nameOf = new Map<string, string>();
  const entries = Object.entries(explicit);
  // Current names first: a deprecated name only fills a knob its new name left unset.
  entries.sort(([a], [b]) => Number(KNOB_BY_LEGACY_NAME.has(a)) - Number(KNOB_BY_LEGACY_NAME.has(b)));
  for (const [key, value] of entries) {
    if (value === undefined || HOST_KEY_SET.has(key)) continue;
    const knob = KNOB_BY_NAME.get(key) ?? KNOB_BY_LEGACY_NAME.get(key);
    const full = `${CONFIG_SECTION}.${key}`;
    if (!knob) {
      issues.push({ key: full, message: `unknown setting "${full}" (ignored)` });
      continue;
    }
    if (nameOf.has(knob)) continue;
    nameOf.set(knob, full);
    if (value === null) {
      issues.push({ key: full, message: `invalid value for "${full}": null; using the policy file's value` });
      continue;
    }
    input[knob] = value;
  }
  const named = (knob: string) => nameOf.get(knob) ?? settingName(knob);
  const r = resolveSettings(input, yamlSettings);
  for (const issue of r.issues) {
    issues.push({ key: issue.key ? named(issue.key) : CONFIG_SECTION, message: renameKeys(issue.message, named) });
  }
  return { settings: r.settings, issues };
}

/** Rewrites snake knob names in a core message to their VS Code setting names. */
function renameKeys(message: string, named: (knob: string) => string): string {
  return message.replace(/\b[a-z]+(?:_[a-z0-9]+)+\b/g, (word) => (SETTING_KEYS.includes(word as SettingKey) ? named(word) : word));
}

/** The host-only settings, validated: a bad value is reported and ignored. */
export interface HostSettings {
  /** Tool names or globs the agent may use besides rawr's own tools. */
  toolsAllowed: string[];
  /** The judgment model, or undefined for the chat's model. */
  judgmentModel: { vendor: string; id: string } | undefined;
}

export function parseHostSettings(raw: { toolsAllowed?: unknown; judgmentModel?: unknown }): { settings: HostSettings; issues: SettingsIssue[] } {
  const issues: SettingsIssue[] = [];
  const toolsKey = `${CONFIG_SECTION}.${HOST_KEYS.toolsAllowed}`;
  const modelKey = `${CONFIG_SECTION}.${HOST_KEYS.judgmentModel}`;
  let toolsAllowed: string[] = [...DEFAULT_ALLOWED_TOOLS];
  if (raw.toolsAllowed !== undefined && raw.toolsAllowed !== null) {
    toolsAllowed = [];
    if (Array.isArray(raw.toolsAllowed)) {
      for (const t of raw.toolsAllowed) {
        if (typeof t === 'string' && t.trim()) toolsAllowed.push(t.trim());
        else issues.push({ key: toolsKey, message: `invalid entry in "${toolsKey}": ${JSON.stringify(t)} (ignored)` });
      }
      toolsAllowed = [...new Set(toolsAllowed)];
    } else {
      toolsAllowed = [...DEFAULT_ALLOWED_TOOLS];
      issues.push({ key: toolsKey, message: `"${toolsKey}" must be a list of tool names or globs; using rawr's default tools` });
    }
  }
  let judgmentModel: HostSettings['judgmentModel'];
  if (raw.judgmentModel !== undefined && raw.judgmentModel !== null && raw.judgmentModel !== '') {
    const m = typeof raw.judgmentModel === 'string' ? /^([^/\s]+)\/(\S+)$/.exec(raw.judgmentModel.trim()) : null;
    const [, vendor, id] = m ?? [];
    if (vendor !== undefined && id !== undefined) judgmentModel = { vendor, id };
    else
      issues.push({ key: modelKey, message: `"${modelKey}" must be "vendor/id" or empty (got ${JSON.stringify(raw.judgmentModel)}); using the chat's model` });
  }
  return { settings: { toolsAllowed, judgmentModel }, issues };
}

/** Whether a tool name is allowed by `rawr.tools.allowed` (exact names or `*` globs, case-sensitive). */
export function toolAllowed(name: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) =>
    pattern.includes('*')
      ? new RegExp(
          `^${pattern
            .split('*')
            .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        ).test(name)
      : pattern === name,
  );
}
