/**
 * Probe facts for the handoff benchmark (handoff.ts): what a continuing agent needs to know at a native
 * compaction, extracted from the raw records before it — independently of rawr's importers and trail, so
 * the benchmark measures rawr's handoff against the recording, not against itself.
 *
 * Classes: files edited, commits made (short sha), open plan items, the current ask, the latest tool
 * errors, the last command and its outcome, the next step. A probe is present in a text when its needle
 * occurs (identifiers: paths, shas) or when most of its content words do (free text: asks, plan items,
 * errors, outcomes), so a faithful paraphrase counts and a vague one does not.
 */

export const CLASSES = ['files_edited', 'commits', 'open_plan_items', 'current_ask', 'tool_errors', 'last_command', 'next_step'] as const;
export type ProbeClass = (typeof CLASSES)[number];

export interface Probe {
  cls: ProbeClass;
  /** What is looked for, for the report. */
  label: string;
  match: { kind: 'exact'; needles: string[] } | { kind: 'words'; text: string; share: number };
}

export interface NativeCompaction {
  line: number;
  trigger: string;
  /** The tool's own post-compaction text (Claude: the isCompactSummary record; Codex: the compacted record). */
  summary: string;
}

// ---- matching ------------------------------------------------------------------------------------------

const STOP = new Set(
  'the a an and or of to in on for with at by from is are was were be been it this that these those as not no do does did done into then than now so if else all any some can will would should could have has had its our your you we they them their there here what which who how when where why just also only more most very please'.split(
    ' ',
  ),
);

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9_][a-z0-9_./-]*[a-z0-9_]|[a-z0-9]/g) ?? []).filter((w) => w.length >= 3 && !STOP.has(w));
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

export function present(p: Probe, text: string, wordSet?: Set<string>): boolean {
  if (p.match.kind === 'exact') {
    const t = norm(text);
    return p.match.needles.some((n) => t.includes(norm(n)));
  }
  const ws = [...new Set(words(p.match.text))].slice(0, 25);
  if (ws.length === 0) return false;
  const set = wordSet ?? new Set(words(text));
  const found = ws.filter((w) => set.has(w)).length;
  return found / ws.length >= p.match.share;
}

// ---- raw records -----------------------------------------------------------------------------------------

interface Call {
  id: string;
  name: string;
  input: unknown;
  line: number;
  output?: string;
  isError?: boolean;
  exitCode?: number;
}

interface Facts {
  prompts: string[];
  calls: Call[];
  assistantTexts: string[];
  /** Latest plan: TodoWrite / update_plan lists, or Claude Code 2.1 tasks (TaskCreate/TaskUpdate). */
  plan: Array<{ text: string; status: string }>;
  cwd?: string;
}

const parse = (l: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(l) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const CLAUDE_INJECTED = /^(<command-|<local-command|<bash-|<task-notification|<system-reminder|\[Request interrupted|This session is being continued)/;

export function formatOf(lines: string[]): 'claude' | 'codex' | undefined {
  for (const l of lines.slice(0, 20)) {
    const r = parse(l);
    if (!r) continue;
    if ('payload' in r) return 'codex';
    if ('sessionId' in r || 'uuid' in r || 'message' in r) return 'claude';
  }
  return undefined;
}

export function nativeCompactions(lines: string[], format: 'claude' | 'codex'): NativeCompaction[] {
  const out: NativeCompaction[] = [];
  lines.forEach((l, k) => {
    const r = parse(l);
    if (!r) return;
    if (format === 'claude' && r.type === 'system' && r.subtype === 'compact_boundary') {
      const trigger = str(obj(r.compactMetadata).trigger) || 'unknown';
      // The summary is the isCompactSummary user record right after the boundary.
      let summary = '';
      for (let j = k + 1; j < Math.min(lines.length, k + 6); j++) {
        const s = parse(lines[j]!);
        if (s?.isCompactSummary) {
          summary = contentText(obj(s.message).content);
          break;
        }
      }
      out.push({ line: k + 1, trigger, summary });
    }
    if (format === 'codex' && r.type === 'compacted') {
      const p = obj(r.payload);
      const history = Array.isArray(p.replacement_history) ? p.replacement_history : [];
      const texts = history.map((h) => (Array.isArray(obj(h).content) ? (obj(h).content as unknown[]).map((c) => str(obj(c).text)).join('\n') : ''));
      out.push({ line: k + 1, trigger: 'auto', summary: [str(p.message), ...texts].filter(Boolean).join('\n\n') });
    }
  });
  return out;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => str(obj(b).text) || (typeof obj(b).content === 'string' ? str(obj(b).content) : ''))
    .filter(Boolean)
    .join('\n');
}

function claudeFacts(lines: string[], before: number): Facts {
  const f: Facts = { prompts: [], calls: [], assistantTexts: [], plan: [] };
  const byId = new Map<string, Call>();
  const tasks = new Map<string, { text: string; status: string }>();
  let todo: Array<{ text: string; status: string }> | undefined;
  let usesTasks = false;
  for (let k = 0; k < before - 1 && k < lines.length; k++) {
    const r = parse(lines[k]!);
    if (!r) continue;
    if (!f.cwd && typeof r.cwd === 'string') f.cwd = r.cwd;
    if (r.isSidechain) continue;
    const msg = obj(r.message);
    if (r.type === 'assistant' && Array.isArray(msg.content)) {
      for (const b of msg.content as unknown[]) {
        const o = obj(b);
        if (o.type === 'text' && str(o.text).trim()) f.assistantTexts.push(str(o.text));
        if (o.type === 'tool_use' && !byId.has(str(o.id))) {
          const c: Call = { id: str(o.id), name: str(o.name), input: o.input, line: k + 1 };
          byId.set(c.id, c);
          f.calls.push(c);
          if (c.name === 'TodoWrite')
            todo = (Array.isArray(obj(c.input).todos) ? (obj(c.input).todos as unknown[]) : []).map((t) => ({
              text: str(obj(t).content),
              status: str(obj(t).status),
            }));
          if (c.name === 'TaskUpdate') {
            usesTasks = true;
            const t = tasks.get(str(obj(c.input).taskId));
            if (t && typeof obj(c.input).status === 'string') t.status = str(obj(c.input).status);
            if (t && typeof obj(c.input).subject === 'string') t.text = str(obj(c.input).subject);
          }
        }
      }
    }
    if (r.type === 'user') {
      const content = msg.content;
      if (Array.isArray(content) && content.some((b) => obj(b).type === 'tool_result')) {
        for (const b of content as unknown[]) {
          const o = obj(b);
          if (o.type !== 'tool_result') continue;
          const c = byId.get(str(o.tool_use_id));
          if (!c) continue;
          c.output = contentText(o.content);
          c.isError = o.is_error === true;
          const m = /^(?:Error: )?Exit code (\d+)/.exec(c.output);
          if (m) c.exitCode = Number(m[1]);
          if (c.name === 'TaskCreate') {
            usesTasks = true;
            const id = /Task #(\S+) created/.exec(c.output)?.[1] ?? str(obj(obj(r.toolUseResult).task).id);
            if (id) tasks.set(id, { text: str(obj(c.input).subject), status: 'pending' });
          }
        }
        continue;
      }
      if (r.isMeta || r.isCompactSummary || r.isVisibleInTranscriptOnly) continue;
      const text = contentText(content);
      if (text.trim() && !CLAUDE_INJECTED.test(text.trimStart())) f.prompts.push(text);
    }
  }
  f.plan = usesTasks ? [...tasks.values()].filter((t) => t.status !== 'deleted') : (todo ?? []);
  return f;
}

function codexFacts(lines: string[], before: number): Facts {
  const f: Facts = { prompts: [], calls: [], assistantTexts: [], plan: [] };
  const byId = new Map<string, Call>();
  for (let k = 0; k < before - 1 && k < lines.length; k++) {
    const r = parse(lines[k]!);
    if (!r) continue;
    const p = obj(r.payload);
    if (r.type === 'session_meta' && typeof p.cwd === 'string') f.cwd = p.cwd;
    if (r.type === 'event_msg' && p.type === 'user_message') {
      const t = str(p.message);
      if (t.trim() && !/^<(environment_context|user_instructions|user_shell_command|turn_aborted)/.test(t.trimStart())) f.prompts.push(t);
    }
    if (r.type !== 'response_item') continue;
    if (p.type === 'message' && p.role === 'assistant') {
      const t = (Array.isArray(p.content) ? p.content : []).map((c) => str(obj(c).text)).join('\n');
      if (t.trim()) f.assistantTexts.push(t);
    }
    if (p.type === 'function_call' || p.type === 'custom_tool_call') {
      let input: unknown = p.type === 'custom_tool_call' ? p.input : p.arguments;
      if (typeof input === 'string' && p.type === 'function_call') {
        try {
          input = JSON.parse(input);
        } catch {
          /* redacted or invalid: kept as the string */
        }
      }
      const c: Call = { id: str(p.call_id), name: str(p.name), input, line: k + 1 };
      byId.set(c.id, c);
      f.calls.push(c);
      if (c.name === 'update_plan')
        f.plan = (Array.isArray(obj(input).plan) ? (obj(input).plan as unknown[]) : []).map((s) => ({ text: str(obj(s).step), status: str(obj(s).status) }));
    }
    if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
      const c = byId.get(str(p.call_id));
      if (!c) continue;
      let out = typeof p.output === 'string' ? p.output : contentText(p.output);
      let code: number | undefined;
      try {
        const j = obj(JSON.parse(out));
        if (typeof j.output === 'string') {
          out = j.output;
          const ec = obj(j.metadata).exit_code;
          if (typeof ec === 'number') code = ec;
        }
      } catch {
        const m = /(?:Process exited with code|Exit code:) (-?\d+)/.exec(out.slice(0, 400));
        if (m) code = Number(m[1]);
      }
      c.output = out;
      if (code !== undefined) c.exitCode = code;
      c.isError = code !== undefined && code !== 0;
    }
  }
  return f;
}

// ---- facts → probes --------------------------------------------------------------------------------------

const SHELL = /^(bash|shell|exec_command|local_shell)$/i;
const EDIT = /^(edit|multiedit|write|notebookedit)$/i;

function commandText(c: Call): string {
  const i = obj(c.input);
  if (typeof c.input === 'string') return c.input;
  if (typeof i.command === 'string') return i.command;
  if (Array.isArray(i.command)) return (i.command as unknown[]).map(String).join(' ');
  if (typeof i.cmd === 'string') return i.cmd;
  return '';
}

/** The error's telling line: not the bare "Exit code N" header, not blank. */
function errorLine(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(Error: )?Exit code \d+$/.test(l) && !/^Process exited with code/.test(l) && !/^(Chunk ID|Wall time|Output):/.test(l));
  return (lines.find((l) => /error|fail|cannot|undefined|not found|denied|invalid|exception|expected/i.test(l)) ?? lines[0] ?? '').slice(0, 160);
}

export function extractProbes(lines: string[], format: 'claude' | 'codex', before: number): Probe[] {
  const f = format === 'claude' ? claudeFacts(lines, before) : codexFacts(lines, before);
  const probes: Probe[] = [];
  const rel = (p: string) => (f.cwd && p.startsWith(`${f.cwd}/`) ? p.slice(f.cwd.length + 1) : p);

  // files edited: Edit/Write/MultiEdit/NotebookEdit that did not fail; apply_patch headers.
  const files = new Set<string>();
  for (const c of f.calls) {
    if (c.isError) continue;
    const i = obj(c.input);
    if (EDIT.test(c.name)) {
      const p = str(i.file_path) || str(i.notebook_path);
      if (p) files.add(rel(p));
    }
    const patch = typeof c.input === 'string' ? c.input : JSON.stringify(c.input ?? '');
    for (const m of patch.replace(/\\n/g, '\n').matchAll(/^\*\*\* (?:Update|Add) File: (.+?)\s*$/gm)) files.add(rel(m[1]!.replace(/\\"/g, '"')));
  }
  for (const p of files) probes.push({ cls: 'files_edited', label: p, match: { kind: 'exact', needles: [p] } });

  // commits: a successful shell command that ran git commit; the sha from git's output.
  const shas = new Set<string>();
  for (const c of f.calls) {
    if (!SHELL.test(c.name) || c.isError || !/\bgit\b(\s+-\S+)*\s+commit\b/.test(commandText(c)) || /--amend|--dry-run/.test(commandText(c))) continue;
    for (const m of (c.output ?? '').matchAll(/^(?:\[[^\]\n]*?\b([0-9a-f]{7,40})\]|([0-9a-f]{7,40}) )/gm)) shas.add((m[1] ?? m[2])!.slice(0, 7));
  }
  for (const s of shas) probes.push({ cls: 'commits', label: s, match: { kind: 'exact', needles: [s] } });

  // open plan items: the latest plan's items not completed.
  for (const s of f.plan.filter((s) => s.status !== 'completed' && s.text.trim()))
    probes.push({ cls: 'open_plan_items', label: s.text.slice(0, 80), match: { kind: 'words', text: s.text, share: 0.7 } });

  // the current ask: the person's latest prompt.
  const ask = f.prompts.at(-1);
  if (ask) probes.push({ cls: 'current_ask', label: ask.replace(/\s+/g, ' ').slice(0, 80), match: { kind: 'words', text: ask.slice(0, 1000), share: 0.7 } });

  // the latest tool errors (up to 3).
  for (const c of f.calls.filter((c) => c.isError && (c.output ?? '').trim()).slice(-3)) {
    const l = errorLine(c.output!);
    if (l) probes.push({ cls: 'tool_errors', label: `${c.name}: ${l.slice(0, 70)}`, match: { kind: 'words', text: l, share: 0.6 } });
  }

  // the last command and its outcome.
  const last = [...f.calls].reverse().find((c) => SHELL.test(c.name) && commandText(c));
  if (last) {
    const cmd = commandText(last);
    probes.push({
      cls: 'last_command',
      label: `command: ${cmd.replace(/\s+/g, ' ').slice(0, 70)}`,
      match: { kind: 'words', text: cmd.slice(0, 400), share: 0.7 },
    });
    const out = last.output ?? '';
    const outcome = last.isError
      ? errorLine(out)
      : (out
          .split('\n')
          .map((l) => l.trim())
          .find((l) => words(l).length >= 2) ?? '');
    if (outcome)
      probes.push({ cls: 'last_command', label: `outcome: ${outcome.slice(0, 70)}`, match: { kind: 'words', text: outcome.slice(0, 200), share: 0.6 } });
  }

  // the next step: the plan's step in progress, else its first pending one, else the agent's last words.
  const next = f.plan.find((s) => s.status === 'in_progress') ?? f.plan.find((s) => s.status === 'pending');
  const lastText = f.assistantTexts
    .at(-1)
    ?.trim()
    .split(/\n\s*\n/)
    .at(-1);
  const nextText = next?.text ?? lastText;
  if (nextText)
    probes.push({ cls: 'next_step', label: nextText.replace(/\s+/g, ' ').slice(0, 80), match: { kind: 'words', text: nextText.slice(0, 400), share: 0.6 } });
  return probes;
}
