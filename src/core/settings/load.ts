/**
 * Settings from an untrusted object (YAML frontmatter, VS Code configuration): each knob is validated on
 * its own, so one bad value costs only that knob (it falls back to its default) and every problem is
 * reported with a precise message. Never throws.
 */
import { DEFAULT_SETTINGS, SettingsSchema, type SettingKey, type Settings } from './schema';

export interface SettingsIssue {
  key: string;
  message: string;
}

export function resolveSettings(
  input: Record<string, unknown> | undefined,
  base: Settings = DEFAULT_SETTINGS,
): { settings: Settings; issues: SettingsIssue[] } {
  const issues: SettingsIssue[] = [];
  const out: Record<string, unknown> = { ...base };
  const shape = SettingsSchema.shape;
  // Untrusted: a YAML scalar or list, or a configuration object that is not a mapping, sets nothing.
  const isMapping = typeof input === 'object' && input !== null && !Array.isArray(input);
  if (input !== undefined && input !== null && !isMapping) {
    issues.push({ key: '', message: `settings must be a mapping of key: value (got ${Array.isArray(input) ? 'a list' : typeof input}); using defaults` });
  }
  for (const [key, value] of Object.entries(isMapping ? input : {})) {
    // Own keys only: `constructor`, `toString` or `__proto__` are unknown settings, not schema lookups.
    if (!Object.prototype.hasOwnProperty.call(shape, key)) {
      issues.push({ key, message: `unknown setting "${key}" (ignored)` });
      continue;
    }
    if (value === undefined || value === null) continue;
    const schema = shape[key as SettingKey];
    const parsed = schema.safeParse(value);
    if (parsed.success) out[key] = parsed.data;
    else {
      const first = parsed.error.issues[0];
      const where = first && first.path.length ? ` at ${key}.${first.path.join('.')}` : '';
      issues.push({
        key,
        message: `invalid value for "${key}"${where}: ${first?.message ?? 'invalid'}; using default ${JSON.stringify(base[key as SettingKey])}`,
      });
    }
  }
  const s = out as Settings;
  // Tiers must nest: emergency < asap < ready < early. A crossed set would make tiers unreachable or
  // fire emergency before asap, so the four thresholds fall back together.
  if (!(
    s.emergency_percent_remaining_lt < s.asap_percent_remaining_lt &&
    s.asap_percent_remaining_lt < s.ready_percent_remaining_lt &&
    s.ready_percent_remaining_lt < s.early_percent_remaining_lt
  )) {
    issues.push({
      key: 'early_percent_remaining_lt',
      message: `tier thresholds must satisfy emergency < asap < ready < early (got ${s.emergency_percent_remaining_lt} < ${s.asap_percent_remaining_lt} < ${s.ready_percent_remaining_lt} < ${s.early_percent_remaining_lt}); using defaults for all four`,
    });
    s.early_percent_remaining_lt = base.early_percent_remaining_lt;
    s.ready_percent_remaining_lt = base.ready_percent_remaining_lt;
    s.asap_percent_remaining_lt = base.asap_percent_remaining_lt;
    s.emergency_percent_remaining_lt = base.emergency_percent_remaining_lt;
  }
  return { settings: SettingsSchema.parse(s), issues };
}
