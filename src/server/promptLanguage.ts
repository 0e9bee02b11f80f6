/**
 * Language features for rawr's prompt files (rawr-*.md): diagnostics for the YAML frontmatter, hover docs
 * and completion for the knobs of rawr-auto-compact.md. Pure functions over the text (no vscode, no
 * connection), returning LSP-shaped objects, so node tests exercise exactly what the core process serves.
 *
 * Diagnostics use the same machinery as the core's loader (loadPromptSet → parseFrontmatter +
 * resolveSettings), so the editor underlines exactly the problems that would make rawr fall back to a
 * default at run time, at the place the loader reports them.
 */
import type { CompletionItem, CompletionItemKind, Diagnostic, DiagnosticSeverity, Hover, Range } from 'vscode-languageserver-types';
import * as z from 'zod';
import { parseFrontmatter, type Problem } from '../core/prompts/frontmatter';
import { loadPromptSet, PROMPT_FILES } from '../core/prompts/promptSet';
import { DEFAULT_SETTINGS, SETTING_DOCS, SettingsSchema, type GatedTier, type SettingKey } from '../core/settings/schema';
import { BOUNDARY_KINDS } from '../core/signals/types';

/** The policy file: its frontmatter holds every knob. */
export const POLICY_FILE = PROMPT_FILES.packetRequest;
/** File names the language features apply to (the client's documentSelector matches the same). */
export const PROMPT_FILE_NAME = /^rawr-.*\.md$/i;

// LSP constants (values fixed by the protocol; imported as types only so this module has no runtime deps).
const SEVERITY: Record<Problem['severity'], DiagnosticSeverity> = { error: 1, warning: 2 };
const KIND_PROPERTY: CompletionItemKind = 10;
const KIND_ENUM_MEMBER: CompletionItemKind = 20;
const KIND_VALUE: CompletionItemKind = 12;

const KNOBS = Object.keys(SETTING_DOCS) as SettingKey[];
const GATED_TIERS: GatedTier[] = ['early', 'ready', 'asap'];
const BOUNDARY_KEY = 'auto_requires_any_boundary';
/** Frontmatter keys of the other prompt files (the template files). */
const TEMPLATE_KEYS: Record<string, string> = {
  description: 'What this prompt is for (free text, not sent to the model).',
  placeholders: 'The `{name}` placeholders this template uses (a list of names, for documentation).',
};

const baseName = (fileName: string) => fileName.replace(/^.*[\\/]/, '');
const isPolicy = (fileName: string | undefined) => fileName === undefined || baseName(fileName).toLowerCase() === POLICY_FILE;
const isKnob = (key: string): key is SettingKey => Object.prototype.hasOwnProperty.call(SETTING_DOCS, key);

// ---- diagnostics ---------------------------------------------------------------------------------

/**
 * Problems of one prompt file as LSP diagnostics. `fileName` decides which checks apply: the policy
 * file's knobs, a template's frontmatter, or (any other rawr-*.md) the YAML alone.
 */
export function promptDiagnostics(text: string, fileName: string): Diagnostic[] {
  const name = baseName(fileName);
  const known = (Object.values(PROMPT_FILES) as string[]).includes(name);
  // The loader itself, fed only this text: every other prompt comes back as its built-in fallback with
  // no problems, so the problems are exactly this file's.
  const problems = known
    ? loadPromptSet([(f) => (f === name ? { path: fileName, text } : undefined)]).problems.filter((p) => p.file === fileName)
    : parseFrontmatter(text, fileName).problems;
  const lines = splitLines(text);
  return problems.map((p) => ({
    range: problemRange(lines, p),
    severity: SEVERITY[p.severity],
    source: 'rawr',
    message: p.message,
  }));
}

/** From the problem's (1-based) position to the end of the token there, or of the line's content. */
function problemRange(lines: string[], p: Problem): Range {
  const line = Math.min(Math.max(p.line - 1, 0), Math.max(lines.length - 1, 0));
  const text = lines[line] ?? '';
  const start = Math.min(Math.max(p.column - 1, 0), text.length);
  let end = contentEnd(text, start);
  if (end <= start) end = Math.min(start + 1, Math.max(text.length, start));
  return { start: { line, character: start }, end: { line, character: end } };
}

/** End of the line's content from `start`, before trailing blanks and a ` # comment`. */
function contentEnd(text: string, start: number): number {
  let quote: string | undefined;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]!)) && i > start) return text.slice(0, i).trimEnd().length;
  }
  return text.trimEnd().length;
}

// ---- frontmatter structure ----------------------------------------------------------------------

const splitLines = (text: string) => text.split(/\r\n|\r|\n/);
const FENCE_LINE = /^---[ \t]*$/;
const KEY_LINE = /^(\s*)(?:-\s+)?([A-Za-z_][\w-]*)[ \t]*:(?=\s|$)/;

interface Frontmatter {
  lines: string[];
  /** First and last (exclusive) line index of the YAML. */
  start: number;
  end: number;
}

/** The YAML lines between the fences (up to the end of the file while the closing fence is missing). */
function frontmatterOf(text: string): Frontmatter | undefined {
  const lines = splitLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!FENCE_LINE.test(lines[0] ?? '')) return undefined;
  let end = lines.findIndex((l, i) => i > 0 && FENCE_LINE.test(l));
  if (end < 0) end = lines.length;
  return { lines, start: 1, end };
}

const indentOf = (line: string) => /^\s*/.exec(line)![0].length;
const isBlankOrComment = (line: string) => /^\s*(#.*)?$/.test(line);

/** Keys enclosing a line, outermost first (by indentation, block style). */
function ancestors(fm: Frontmatter, line: number, indent: number): string[] {
  const out: string[] = [];
  let limit = indent;
  for (let i = line - 1; i >= fm.start && limit > 0; i--) {
    const l = fm.lines[i]!;
    if (isBlankOrComment(l)) continue;
    const m = KEY_LINE.exec(l);
    const ind = indentOf(l);
    if (m && ind < limit) {
      out.unshift(m[2]!);
      limit = ind;
    }
  }
  return out;
}

/** Parent key of a block-sequence item (`- x`), which YAML allows at the parent's own indentation. */
function listParent(fm: Frontmatter, line: number, indent: number): string[] {
  for (let i = line - 1; i >= fm.start; i--) {
    const l = fm.lines[i]!;
    if (isBlankOrComment(l) || /^\s*-\s/.test(l)) continue;
    const m = KEY_LINE.exec(l);
    const ind = indentOf(l);
    if (m && ind <= indent) return [...ancestors(fm, i, ind), m[2]!];
    if (ind < indent) break;
  }
  return [];
}

/** Top-level keys present in the frontmatter (except on `skipLine`). */
function presentKeys(fm: Frontmatter, skipLine: number): Set<string> {
  const keys = new Set<string>();
  for (let i = fm.start; i < fm.end; i++) {
    if (i === skipLine) continue;
    const m = /^([A-Za-z_][\w-]*)[ \t]*:/.exec(fm.lines[i]!);
    if (m) keys.add(m[1]!);
  }
  return keys;
}

// ---- knob documentation -------------------------------------------------------------------------

const code = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;
const flowList = (xs: readonly unknown[]) => `[${xs.map((x) => String(x)).join(', ')}]`;

/** Allowed values of a knob, read off its zod schema (so the hover cannot drift from the validation). */
export function allowedValues(key: SettingKey): string {
  return describeSchema(SettingsSchema.shape[key]);
}

function describeSchema(s: z.ZodType): string {
  if (s instanceof z.ZodEnum) return (s.options as string[]).map(code).join(' | ');
  if (s instanceof z.ZodBoolean) return '`true` | `false`';
  if (s instanceof z.ZodNumber) {
    const kind = s.isInt ? 'a whole number' : 'a number';
    const lo = Number.isFinite(s.minValue) ? s.minValue : undefined;
    const hi = Number.isFinite(s.maxValue) ? s.maxValue : undefined;
    if (lo !== undefined && hi !== undefined) return `${kind} from ${lo} to ${hi}`;
    if (lo !== undefined) return `${kind} ≥ ${lo}`;
    if (hi !== undefined) return `${kind} ≤ ${hi}`;
    return kind;
  }
  if (s instanceof z.ZodArray) {
    const el = s.element as z.ZodType;
    const max = (s.def.checks ?? []).map((c) => c._zod.def as { check?: string; maximum?: number }).find((d) => d.check === 'max_length')?.maximum;
    const most = max !== undefined ? `, at most ${max}` : '';
    if (el instanceof z.ZodEnum) return `a list of ${(el.options as string[]).map(code).join(' | ')}${most}`;
    if (el instanceof z.ZodString) {
      const lo = el.minLength ?? 0;
      const hi = el.maxLength;
      return `a list of phrases (${hi != null ? `${lo}–${hi}` : `≥ ${lo}`} characters each${most}), matched case-insensitively`;
    }
    return `a list${most}`;
  }
  if (s instanceof z.ZodObject) {
    const keys = Object.keys(s.shape);
    const first = s.shape[keys[0]!] as z.ZodType | undefined;
    return `a mapping with ${keys.map(code).join(', ')}${first ? `, each ${describeSchema(first)}` : ''}`;
  }
  return 'see the documentation';
}

function defaultText(key: SettingKey): string {
  const v = DEFAULT_SETTINGS[key];
  if (key === BOUNDARY_KEY) {
    const m = v as Record<GatedTier, string[]>;
    return GATED_TIERS.map((t) => `\`${t}: ${flowList(m[t])}\``).join(', ');
  }
  return Array.isArray(v) ? `\`${flowList(v)}\`` : code(v);
}

function knobMarkdown(key: SettingKey): string {
  return [`**\`${key}\`** — rawr setting`, '', SETTING_DOCS[key], '', `Default: ${defaultText(key)}  `, `Allowed: ${allowedValues(key)}`].join('\n');
}

function tierMarkdown(tier: GatedTier): string {
  return [
    `**\`${BOUNDARY_KEY}.${tier}\`** — rawr setting`,
    '',
    `Boundary kinds of which at least one must be present for the **${tier}** tier to compact.`,
    '',
    `Default: \`${flowList(DEFAULT_SETTINGS.auto_requires_any_boundary[tier])}\`  `,
    `Allowed: ${describeSchema(SettingsSchema.shape.auto_requires_any_boundary.shape[tier])}`,
  ].join('\n');
}

// ---- hover --------------------------------------------------------------------------------------

/**
 * Hover over a knob key in the frontmatter (or a tier key under auto_requires_any_boundary): its
 * documentation, default and allowed values. `fileName` (optional) limits knobs to the policy file.
 */
export function promptHover(text: string, line: number, character: number, fileName?: string): Hover | null {
  const fm = frontmatterOf(text);
  if (!fm || line < fm.start || line >= fm.end) return null;
  const l = fm.lines[line]!;
  const m = KEY_LINE.exec(l);
  if (!m) return null;
  const key = m[2]!;
  const keyStart = l.indexOf(key, m[1]!.length); // after the indentation (and a `- ` if any)
  const keyEnd = keyStart + key.length;
  if (character < keyStart || character > keyEnd) return null;
  const range: Range = { start: { line, character: keyStart }, end: { line, character: keyEnd } };
  const indent = m[1]!.length;
  const policy = isPolicy(fileName);
  let value: string | undefined;
  if (indent === 0 && !/^\s*-/.test(l)) {
    if (policy && isKnob(key)) value = knobMarkdown(key);
    else if (!policy && TEMPLATE_KEYS[key]) value = `**\`${key}\`**\n\n${TEMPLATE_KEYS[key]}`;
  } else if (policy && (GATED_TIERS as string[]).includes(key)) {
    const path = ancestors(fm, line, indent);
    if (path.length === 1 && path[0] === BOUNDARY_KEY) value = tierMarkdown(key as GatedTier);
  }
  return value ? { contents: { kind: 'markdown', value }, range } : null;
}

// ---- completion ---------------------------------------------------------------------------------

/** Enum-like values a top-level knob accepts (empty for numbers and free lists). */
function knobValues(key: SettingKey): string[] {
  const s = SettingsSchema.shape[key] as z.ZodType;
  if (s instanceof z.ZodEnum) return s.options as string[];
  if (s instanceof z.ZodBoolean) return ['true', 'false'];
  return [];
}

/**
 * Completion inside the frontmatter: knob names at a key position, enum values after `mode:`,
 * `packet_author:`, `mid_turn_policy:` (and true/false for switches), tier names and boundary kinds
 * under auto_requires_any_boundary (block or flow style). Nothing outside the frontmatter.
 */
export function promptCompletions(text: string, line: number, character: number, fileName?: string): CompletionItem[] {
  const fm = frontmatterOf(text);
  if (!fm || line < fm.start || line >= fm.end) return [];
  const l = fm.lines[line]!;
  const before = l.slice(0, character);
  if (/^\s*#/.test(before)) return [];
  const word = /[\w-]*$/.exec(before)![0];
  const after = /^[\w-]*/.exec(l.slice(character))![0];
  const range: Range = { start: { line, character: character - word.length }, end: { line, character: character + after.length } };
  const policy = isPolicy(fileName);
  const restHasColon = /^[\w-]*[ \t]*:/.test(l.slice(character));

  const keyItems = (keys: string[], doc: (k: string) => string): CompletionItem[] =>
    keys.map((k, i) => ({
      label: k,
      kind: KIND_PROPERTY,
      documentation: { kind: 'markdown', value: doc(k) },
      sortText: String(i).padStart(3, '0'),
      textEdit: { range, newText: restHasColon ? k : `${k}: ` },
    }));
  const valueItems = (values: readonly string[], kind: CompletionItemKind, detail: string): CompletionItem[] =>
    values.map((v, i) => ({ label: v, kind, detail, sortText: String(i).padStart(3, '0'), textEdit: { range, newText: v } }));
  const boundaryItems = () => valueItems(BOUNDARY_KINDS, KIND_ENUM_MEMBER, 'boundary kind');

  // A key being typed: `mo|`, `  ea|`.
  const keyPos = /^(\s*)[\w-]*$/.exec(before);
  if (keyPos) {
    const indent = keyPos[1]!.length;
    if (indent === 0) {
      if (!policy) return keyItems(Object.keys(TEMPLATE_KEYS), (k) => TEMPLATE_KEYS[k]!);
      const present = presentKeys(fm, line);
      return keyItems(
        KNOBS.filter((k) => !present.has(k)),
        (k) => knobMarkdown(k as SettingKey),
      );
    }
    const path = ancestors(fm, line, indent);
    if (policy && path.length === 1 && path[0] === BOUNDARY_KEY) return keyItems(GATED_TIERS, (t) => tierMarkdown(t as GatedTier));
    return [];
  }

  // A block-sequence item: `    - com|`.
  const item = /^(\s*)-\s+[\w-]*$/.exec(before);
  if (item) {
    const path = listParent(fm, line, item[1]!.length);
    if (policy && path.length === 2 && path[0] === BOUNDARY_KEY && (GATED_TIERS as string[]).includes(path[1]!)) return boundaryItems();
    return [];
  }

  // A value: `key: va|`, `key: [a, b|`, `key: {early: [a|`.
  const kv = /^(\s*)([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$/.exec(before);
  if (!kv || !policy) return [];
  const indent = kv[1]!.length;
  const key = kv[2]!;
  const rest = kv[3]!;
  const flow = openFlow(rest);
  if (indent === 0) {
    if (key === BOUNDARY_KEY) {
      if (flow.endsWith('[')) return boundaryItems();
      if (flow.endsWith('{') && /(^|[{,])\s*[\w-]*$/.test(rest)) return keyItems(GATED_TIERS, (t) => tierMarkdown(t as GatedTier));
      return [];
    }
    if (!isKnob(key) || flow !== '' || /\s/.test(rest.trim())) return [];
    const values = knobValues(key);
    return valueItems(values, values[0] === 'true' ? KIND_VALUE : KIND_ENUM_MEMBER, key);
  }
  const path = ancestors(fm, line, indent);
  if (path.length === 1 && path[0] === BOUNDARY_KEY && (GATED_TIERS as string[]).includes(key) && flow.endsWith('[')) return boundaryItems();
  return [];
}

/** The still-open flow brackets of a value prefix, e.g. `{early: [commit, ` → `{[` (quotes respected). */
function openFlow(rest: string): string {
  const stack: string[] = [];
  let quote: string | undefined;
  for (const ch of rest) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '{') stack.push(ch);
    else if (ch === ']' || ch === '}') stack.pop();
  }
  return stack.join('');
}
