/** The prompt files by name (shipped under prompts/, overridable per workspace; promptSet.ts loads them). */
export const PROMPT_FILES = {
  packetRequest: 'rawr-auto-compact.md',
  headsUp: 'rawr-heads-up.md',
  scratchWrite: 'rawr-scratch-write.md',
  judgment: 'rawr-auto-compaction-judgment.md',
  judgmentContext: 'rawr-auto-compaction-judgment-context.md',
  handoff: 'rawr-handoff.md',
  compactionSummary: 'rawr-compaction-summary.md',
  agent: 'rawr-agent.md',
} as const;
export type PromptName = keyof typeof PROMPT_FILES;
export type Prompts = Record<PromptName, string>;
