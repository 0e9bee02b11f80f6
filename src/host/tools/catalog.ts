/**
 * The default tool set @rawr's agent works with (docs/TOOLS.md): names, what each tells the model, its
 * input schema (zod, the single source: the JSON Schema in package.json's `languageModelTools` and the
 * one the model sees are generated from it) and its kind — `read` tools run without asking, `write` and
 * `execute` tools ask through VS Code's confirmation and are refused in Restricted Mode.
 *
 * vscode-free: scripts/gen-config.mjs writes package.json from it, and unit tests check the two agree.
 */
import * as z from 'zod';

export type ToolKind = 'read' | 'write' | 'execute';

export interface ToolSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  /** Shown in VS Code's tool lists and confirmations. */
  displayName: string;
  /** What the model is told (modelDescription). */
  description: string;
  schema: S;
  kind: ToolKind;
  /** Refused in Restricted Mode although it only reads: git runs the repository's own config (fsmonitor, hooks). */
  needsTrust?: true;
}

const relPath = z.string().min(1).max(1000).describe('Path relative to the workspace folder (or absolute inside it).');

export const ReadFileInput = z.object({
  path: relPath,
  startLine: z.number().int().min(1).optional().describe('First line to return (1-based, default 1).'),
  endLine: z.number().int().min(1).optional().describe('Last line to return (inclusive, default: up to the output cap).'),
});
export const ListFilesInput = z.object({
  glob: z.string().min(1).max(500).optional().describe('Glob relative to the workspace, e.g. "src/**/*.ts" (default "**/*").'),
  maxResults: z.number().int().min(1).max(1000).optional().describe('At most this many paths (default 200).'),
});
export const SearchTextInput = z.object({
  query: z.string().min(1).max(500).describe('Text to find (a JavaScript regular expression when isRegex is true).'),
  isRegex: z.boolean().optional(),
  caseSensitive: z.boolean().optional(),
  glob: z.string().min(1).max(500).optional().describe('Only files matching this glob (default "**/*").'),
  maxResults: z.number().int().min(1).max(500).optional().describe('At most this many matching lines (default 100).'),
});
export const CreateFileInput = z.object({
  path: relPath,
  content: z.string().max(1_000_000),
  overwrite: z.boolean().optional().describe('Replace an existing file (default false: an existing file is an error).'),
});
export const EditFileInput = z.object({
  path: relPath,
  old_string: z.string().min(1).max(200_000).describe('Exact text to replace, including whitespace; must occur exactly once unless replace_all.'),
  new_string: z.string().max(200_000).describe('The replacement text.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence (default false).'),
});
export const GitStatusInput = z.object({});
export const GitDiffInput = z.object({
  staged: z.boolean().optional().describe('Show staged changes (git diff --cached) instead of unstaged ones.'),
  path: z.string().min(1).max(1000).optional().describe('Limit the diff to this path.'),
});
export const RunCommandInput = z.object({
  command: z.string().min(1).max(10_000).describe('Shell command line to run in the workspace folder.'),
  timeoutSeconds: z.number().int().min(1).max(3600).optional().describe('Interrupt the command after this many seconds (default 120).'),
});

export const TOOL_NAMES = {
  readFile: 'rawr_read_file',
  listFiles: 'rawr_list_files',
  searchText: 'rawr_search_text',
  createFile: 'rawr_create_file',
  editFile: 'rawr_edit_file',
  gitStatus: 'rawr_git_status',
  gitDiff: 'rawr_git_diff',
  runInTerminal: 'rawr_run_in_terminal',
} as const;

export const TOOL_SPECS = {
  readFile: {
    name: TOOL_NAMES.readFile,
    displayName: 'Read File',
    description:
      'Read a text file of the workspace, with line numbers. Use startLine/endLine for a range; long files are cut at an output cap (the answer says where to continue).',
    schema: ReadFileInput,
    kind: 'read',
  },
  listFiles: {
    name: TOOL_NAMES.listFiles,
    displayName: 'List Files',
    description: 'List workspace files matching a glob (relative paths, sorted). node_modules, .git, out and dist are skipped.',
    schema: ListFilesInput,
    kind: 'read',
  },
  searchText: {
    name: TOOL_NAMES.searchText,
    displayName: 'Search Text',
    description: 'Search the text of workspace files (plain text or a regular expression); returns path:line: text for each matching line, bounded.',
    schema: SearchTextInput,
    kind: 'read',
  },
  createFile: {
    name: TOOL_NAMES.createFile,
    displayName: 'Create File',
    description: 'Create a new file in the workspace with the given content (folders are created). Use rawr_edit_file to change an existing file.',
    schema: CreateFileInput,
    kind: 'write',
  },
  editFile: {
    name: TOOL_NAMES.editFile,
    displayName: 'Edit File',
    description:
      'Replace old_string with new_string in a workspace file. old_string must match the file exactly (whitespace included) and occur exactly once, unless replace_all is true; read the file first.',
    schema: EditFileInput,
    kind: 'write',
  },
  gitStatus: {
    name: TOOL_NAMES.gitStatus,
    displayName: 'Git Status',
    description: 'Show the branch and the changed files of the workspace repository (git status --short --branch). Read-only.',
    schema: GitStatusInput,
    kind: 'read',
    needsTrust: true,
  },
  gitDiff: {
    name: TOOL_NAMES.gitDiff,
    displayName: 'Git Diff',
    description: 'Show uncommitted changes (git diff, or --cached with staged: true), optionally for one path. Read-only; bounded output.',
    schema: GitDiffInput,
    kind: 'read',
    needsTrust: true,
  },
  runInTerminal: {
    name: TOOL_NAMES.runInTerminal,
    displayName: 'Run in Terminal',
    description:
      'Run a shell command in rawr\'s terminal in the workspace folder and return its output and exit code. Use it for builds, tests and git (commit with `git commit -m "…"`). Not for commands that wait for input or never end (servers, watchers): they are interrupted at the timeout.',
    schema: RunCommandInput,
    kind: 'execute',
  },
} satisfies Record<keyof typeof TOOL_NAMES, ToolSpec>;

/** Every default tool, in a stable order. */
export const DEFAULT_TOOL_SPECS: readonly ToolSpec[] = Object.values(TOOL_SPECS);

/** `rawr.tools.allowed`'s default: the tools above (rawr_update_plan and rawr_write_scratch are always offered). */
export const DEFAULT_ALLOWED_TOOLS: readonly string[] = DEFAULT_TOOL_SPECS.map((t) => t.name);

/** The JSON Schema of a tool's input, as the model and package.json see it (zod v4's toJSONSchema). */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return rest;
}

/** `contributes.languageModelTools` (package.json must equal it; see scripts/gen-config.mjs). */
export function languageModelToolsContribution(): object[] {
  return DEFAULT_TOOL_SPECS.map((t) => ({
    name: t.name,
    displayName: t.displayName,
    modelDescription: t.description,
    userDescription: t.description.split('. ')[0]!.replace(/\.$/, '') + '.',
    canBeReferencedInPrompt: false,
    icon: `$(${ICONS[t.name] ?? 'tools'})`,
    tags: ['rawr', t.kind],
    inputSchema: inputJsonSchema(t.schema),
  }));
}

const ICONS: Record<string, string> = {
  rawr_read_file: 'file',
  rawr_list_files: 'list-tree',
  rawr_search_text: 'search',
  rawr_create_file: 'new-file',
  rawr_edit_file: 'edit',
  rawr_git_status: 'git-commit',
  rawr_git_diff: 'diff',
  rawr_run_in_terminal: 'terminal',
};

/** The spec of a default tool by name, undefined for others. */
export function specOf(name: string): ToolSpec | undefined {
  return DEFAULT_TOOL_SPECS.find((t) => t.name === name);
}

/** Whether a default tool may run in Restricted Mode (an untrusted workspace): only the plain readers. */
export function allowedInRestrictedMode(spec: ToolSpec): boolean {
  return spec.kind === 'read' && !spec.needsTrust;
}
