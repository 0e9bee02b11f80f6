/**
 * Done / concluding / topic-shift markers (docs/ARCHITECTURE.md#boundaries): phrases from the YAML, matched on word
 * boundaries, case-insensitively, and counted only when the turn had real work activity (tool calls or
 * edits) — a chatty "to summarize" in a Q&A turn is not a phase boundary.
 */
import type { Settings } from '../settings/schema';
import type { BoundaryKind, DetectedBoundary } from './types';

const cache = new WeakMap<string[], RegExp | null>();

function compile(markers: string[]): RegExp | null {
  let re = cache.get(markers);
  if (re === undefined) {
    const parts = markers
      .map((m) => m.trim())
      .filter(Boolean)
      .map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
    re = parts.length ? new RegExp(`(?:^|[^\\p{L}\\p{N}])(${parts.join('|')})(?=$|[^\\p{L}\\p{N}])`, 'iu') : null;
    cache.set(markers, re);
  }
  return re;
}

export function detectMarkers(text: string, s: Settings, hadWorkActivity: boolean): DetectedBoundary[] {
  if (!hadWorkActivity || !text) return [];
  // Quoted or fenced text is the agent quoting something, not announcing.
  const prose = text.replace(/```[\s\S]*?```/g, ' ').replace(/`[^`\n]*`/g, ' ');
  const out: DetectedBoundary[] = [];
  const lists: Array<[BoundaryKind, string[]]> = [
    ['agent_done', s.agent_done_markers],
    ['concluding', s.concluding_markers],
    ['topic_shift', s.topic_shift_markers],
  ];
  for (const [kind, markers] of lists) {
    const m = compile(markers)?.exec(prose);
    if (m) out.push({ kind, key: m[1]!.toLowerCase().replace(/\s+/g, ' '), detail: `agent said "${m[1]}"` });
  }
  return out;
}
