/**
 * Codex CLI as an agent for the shared hook runner (shared/run.ts). Codex sets nothing like
 * `CLAUDE_PROJECT_DIR`; the hook input's `cwd` is the session's working folder, fixed for the session.
 */
import { readRolloutFacts } from '../shared/facts';
import { codexProjectRoot } from '../shared/fastPath';
import type { AgentSpec } from '../shared/run';

export const CODEX: AgentSpec = {
  id: 'codex',
  readFacts: readRolloutFacts,
  projectRoot: codexProjectRoot,
};
