/** Claude Code as an agent for the shared hook runner (shared/run.ts). */
import { readTranscriptFacts } from '../shared/facts';
import { claudeProjectRoot, type AgentSpec } from '../shared/run';

export const CLAUDE: AgentSpec = { id: 'claude', readFacts: readTranscriptFacts, projectRoot: claudeProjectRoot };
