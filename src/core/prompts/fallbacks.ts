/**
 * Minimal built-in texts used only when a prompt file is missing or empty, so a broken install still
 * runs a correct (if plainer) golden path. The real texts live in prompts/*.md.
 */
import type { PromptName } from './promptFiles';

export const FALLBACK_BODIES: Record<PromptName, string> = {
  packetRequest:
    "[rawr] Write your continuation packet now with these Markdown sections: ## What just completed, ## Where we are now, ## What's next, ## Decisions, invariants and traps. Write it as the text of this reply; call no tool other than rawr_write_scratch.",
  headsUp:
    '[rawr watcher → agent] Heads-up: pausing at a phase boundary ({boundary}; tier {tier}, {percentRemaining}% left). You will write a continuation packet, rawr compacts, then you continue. Why now: {reason}',
  scratchWrite: '[rawr] Save your working notes: call the rawr_write_scratch tool once with them (they go to `{scratchPath}`).',
  judgment: '[rawr] Decide whether to compact now. Output only strict JSON {"should_compact": boolean, "reason": string}. Never veto Emergency.',
  judgmentContext:
    'tier: {tier}\npercentRemaining: {percentRemaining}\nboundariesJson: {boundariesJson}\nPhase forecast: {phaseForecast}\nUser requests:\n{userRequestChain}\nPlan:\n{planTrail}\nLast agent message:\n{lastAgentMessage}\nRecent:\n{transcriptExcerpt}',
  handoff:
    '[rawr handoff] ⚠️ CONTEXT COMPACTION DETECTED — you have lost working context.\nBEFORE doing anything else, you MUST:\n{recoverySteps}\n\nThe continuation packet {packetOrigin}:\n<continuation-packet>\n{packet}\n</continuation-packet>\n{scratchLine}\nContinue from here.',
  agent:
    'You are a coding agent in VS Code (@rawr). Work in phases: keep a plan with rawr_update_plan, read before you edit, verify with the tests, commit at the end of each phase (git commit through rawr_run_in_terminal) and say when a phase is done.\n\nEnvironment:\n- Workspace folders: {workspaceFolders}\n- OS: {os}\n- Shell: {shell}\n- Git branch: {gitBranch}\n- Tools: {tools}',
  compactionSummary:
    '[rawr] Summarise this conversation for the same agent to continue: the current ask verbatim, files edited (full paths), commits (short sha), open plan items, the last command and its outcome, the latest errors, decisions, and the next step. {instructions}',
};
