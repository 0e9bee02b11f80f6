/**
 * The prompt files: shipped under prompts/, overridable per workspace. Loading never throws: a missing,
 * unreadable or malformed file yields the shipped text (or the built-in fallback) plus located problems.
 */
import * as z from 'zod';
import { parseFrontmatter, type Problem } from './frontmatter';
import { resolveSettings } from '../settings/load';
import { DEFAULT_SETTINGS, type Settings } from '../settings/schema';
import { FALLBACK_BODIES } from './fallbacks';
import { PROMPT_FILES, type PromptName, type Prompts } from './promptFiles';

// The names live in their own file so that the fallback texts can be typed by them without a cycle.
export { PROMPT_FILES, type PromptName, type Prompts } from './promptFiles';

export interface PromptSet {
  settings: Settings;
  prompts: Prompts;
  /** Which file each prompt came from (workspace override, shipped, or built-in). */
  sources: Record<PromptName, string>;
  problems: Problem[];
}

/** Reads a prompt file by name; returns undefined when it does not exist. */
export type PromptReader = (fileName: string) => { path: string; text: string } | undefined;

const TemplateFrontmatter = z.object({ description: z.string().optional(), placeholders: z.array(z.string()).optional() }).passthrough();

export function loadPromptSet(readers: PromptReader[]): PromptSet {
  const problems: Problem[] = [];
  const prompts = {} as Prompts;
  const sources = {} as Record<PromptName, string>;
  let settings: Settings = DEFAULT_SETTINGS;

  for (const [name, fileName] of Object.entries(PROMPT_FILES) as Array<[PromptName, string]>) {
    let found: { path: string; text: string } | undefined;
    for (const read of readers) {
      try {
        found = read(fileName);
      } catch (err) {
        problems.push({ file: fileName, line: 1, column: 1, message: `cannot read: ${(err as Error).message}`, severity: 'error' });
      }
      if (found) break;
    }
    if (!found) {
      prompts[name] = FALLBACK_BODIES[name];
      sources[name] = 'built-in';
      continue;
    }
    const parsed = parseFrontmatter(found.text, found.path);
    problems.push(...parsed.problems);
    prompts[name] = parsed.body.trim() || FALLBACK_BODIES[name];
    sources[name] = found.path;
    if (name === 'packetRequest') {
      const { settings: s, issues } = resolveSettings(parsed.data);
      settings = s;
      for (const issue of issues) {
        problems.push({
          file: found.path,
          ...parsed.locate(issue.key),
          message: issue.message,
          severity: issue.message.startsWith('unknown') ? 'warning' : 'error',
        });
      }
    } else if (parsed.data) {
      const fm = TemplateFrontmatter.safeParse(parsed.data);
      if (!fm.success) {
        const first = fm.error.issues[0];
        const key = String(first?.path[0] ?? '');
        problems.push({ file: found.path, ...parsed.locate(key), message: `frontmatter ${key}: ${first?.message}`, severity: 'warning' });
      }
    }
  }
  return { settings, prompts, sources, problems };
}

/** Expands `{name}` placeholders; unknown names are left as they are so a typo stays visible. */
export function fillTemplate(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (whole, key: string) =>
    Object.prototype.hasOwnProperty.call(vars, key) ? String(vars[key]) : whole,
  );
}
