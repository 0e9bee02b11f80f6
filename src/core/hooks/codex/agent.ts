/**
 * Codex CLI as an agent for the shared hook runner (shared/run.ts). Codex sets nothing like
 * `CLAUDE_PROJECT_DIR`; the hook input's `cwd` is the session's working folder, fixed for the session.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRolloutFacts } from '../shared/facts';
import type { AgentSpec } from '../shared/run';

export const CODEX: AgentSpec = {
  id: 'codex',
  readFacts: readRolloutFacts,
  projectRoot: (input) => {
    try {
      return fs.statSync(input.cwd).isDirectory() ? path.resolve(input.cwd) : undefined;
    } catch {
      return undefined;
    }
  },
};
