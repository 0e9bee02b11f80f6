// Mutation testing of rawr's pure core with Stryker, one scope at a time (CONTRIBUTING.md "Mutation
// testing with Stryker"). Stryker is not a project dependency; install it without saving, then run:
//
//   npm i --no-save --legacy-peer-deps @stryker-mutator/core@9.6.1 @stryker-mutator/mocha-runner@9.6.1
//   sed -i -E 's#(lib/cli/(run-helpers|options|collect-files))`#\1.cjs`#' node_modules/@stryker-mutator/mocha-runner/dist/src/lib-wrapper.js
//   RAWR_MUT_SCOPE=arbiter npx stryker run scripts/mutation/stryker.config.mjs   # or forecast, judgment, engine, step, logformat, steer, sequence, install, tools
//
// Why those versions and the sed: Stryker 10 needs Node 22 (we run on 20); mocha-runner 9.6.1 declares
// mocha < 12 and requires mocha's lib/cli/*.js, which mocha 12 renamed to .cjs. The report lands in
// test-artifacts/mutation/<scope>.json (and a clear-text table on stdout).
//
// Each scope names the unit tests that exercise it directly; the slow ones (fast-check properties over
// 10,000 sequences, CLI and streaming tests of minutes) are left out, or one run would take hours.

// The arbiter's tests: the tier rule, the forecast and the judgment, through the engine's step.
const ARBITER_TESTS = [
  'unit/engine.decide',
  'unit/arbiter.forecast',
  'unit/arbiter.forecastEdges',
  'unit/arbiter.forecastMidPhase',
  'unit/arbiter.judgment',
  'unit/engine.step',
  'unit/engine.idle',
  'unit/engine.receipt',
];
// The engine's tests: every step-level behaviour, and the views and logs built from its state.
const ENGINE_TESTS = [
  // Every test/unit/engine.*.test.ts: one file per behaviour of the step (a glob, so a new one is included).
  'unit/engine.*',
  'unit/arbiter.forecast',
  'unit/overflow',
  'unit/eventLog',
  'unit/hardening.quote',
  'unit/participant.chatText',
  'unit/panel.viewModel',
  'unit/hooks.repair',
];
const scopes = {
  arbiter: { mutate: ['src/core/arbiter/**/*.ts'], tests: ARBITER_TESTS },
  // One file of the arbiter at a time: a quicker run after changing it.
  forecast: { mutate: ['src/core/arbiter/forecast.ts'], tests: ARBITER_TESTS },
  judgment: { mutate: ['src/core/arbiter/judgment.ts'], tests: ARBITER_TESTS },
  engine: {
    mutate: ['src/core/engine/**/*.ts', '!src/core/engine/types.ts'],
    tests: ENGINE_TESTS,
  },
  // The engine's state machine alone (step.ts and state.ts): a quicker run after changing them.
  step: { mutate: ['src/core/engine/step.ts', 'src/core/engine/state.ts'], tests: ENGINE_TESTS },
  logformat: {
    mutate: ['src/core/logformat/**/*.ts'],
    tests: ['unit/hardening.log', 'unit/eventLog', 'unit/eventLog.reader', 'property/fastRecord.property'],
  },
  // Steering Claude Code's compaction: the verdict, the PreCompact and PostToolUse calls around it, the
  // session's state and log; with the tests of the catch-up, the lost answer and the late transcript.
  steer: {
    mutate: ['src/core/hooks/claude/steer*.ts', 'src/core/hooks/shared/sessionLog.ts'],
    // hooks.resident runs the bundled hook (dist/hook.js): the sandbox builds it as `npm run build` does.
    build: 'npm run build',
    tests: [
      'unit/hooks.steer',
      'unit/hooks.steerVerdict',
      'unit/hooks.steerState',
      'unit/hooks.steerAtTool',
      'unit/hooks.steerLog',
      'unit/hooks.steerCache',
      'unit/hooks.catchUp',
      'unit/hooks.resident',
      'unit/hooks.transcriptCaughtUp',
    ],
  },
  // What `rawr hooks install` writes into a user's settings and what uninstall puts back (leave no trace):
  // the installer, the uninstaller, their record of every byte, the config files' guarded reads and writes,
  // the JSONC and TOML edits and the local .gitignore line; through the commands the extension runs.
  install: {
    mutate: [
      'src/core/hooks/shared/installer.ts',
      'src/core/hooks/shared/uninstaller.ts',
      'src/core/hooks/shared/installState.ts',
      'src/core/hooks/shared/configFile.ts',
      'src/core/hooks/shared/jsonEdit.ts',
      'src/core/hooks/shared/gitignoreLocal.ts',
      'src/core/hooks/shared/undoLog.ts',
      'src/core/hooks/shared/hooksConfig.ts',
      'src/core/hooks/codex/trust.ts',
    ],
    tests: [
      'unit/hooks.installCommands',
      'unit/hooks.steer',
      'unit/hardening.installers',
      'unit/hooks.codex',
      'unit/hooks.jsonEdit',
      'unit/hooks.gitignoreLocal',
      'unit/hooks.hooksConfig',
      'unit/hooks.codexTrust',
    ],
  },
  // The agent's tools on an untrusted repository (hostile input): paths confined to the workspace, files read
  // as regular files within a cap and in their own encoding, edits matched line by line, search bounded.
  tools: {
    mutate: [
      'src/host/tools/workspacePath.ts',
      'src/host/tools/fileText.ts',
      'src/host/tools/fileTools.ts',
      'src/host/tools/textSearch.ts',
      'src/host/tools/lineMatch.ts',
      'src/host/tools/textEncoding.ts',
      'src/host/tools/scratchFolder.ts',
    ],
    tests: [
      'unit/tools.confinement',
      'unit/tools.encoding',
      'unit/tools.search',
      'unit/tools.lineMatch',
      'unit/tools.decodeText',
      'unit/tools.openEditor',
      'unit/tools.scratchFolder',
      'unit/agent.tools',
    ],
  },
  sequence: {
    mutate: ['src/core/sequence/**/*.ts'],
    tests: [
      'unit/preparedSummary',
      'unit/hooks.repair',
      'unit/hardening.quote',
      'unit/engine.step',
      'unit/participant.chatText',
      'unit/overflow',
      'unit/handoff',
      'unit/sequence.watcherPacket',
      'unit/sequence.repair',
      'unit/sequence.trailFacts',
      'unit/sequence.texts',
      'unit/sequence.recentTail',
    ],
  },
};
const name = process.env.RAWR_MUT_SCOPE ?? 'arbiter';
const scope = scopes[name];
if (!scope) throw new Error(`RAWR_MUT_SCOPE must be one of: ${Object.keys(scopes).join(', ')}`);

export default {
  testRunner: 'mocha',
  // Stryker instruments the TypeScript in a sandbox copy; tsc then compiles it to out/ like `npm run build`.
  buildCommand: scope.build ?? 'npx tsc -p .',
  coverageAnalysis: 'perTest',
  // Two cores, shared: more runners only queue.
  concurrency: Number(process.env.RAWR_MUT_CONCURRENCY ?? 2),
  // A module-level constant's mutant would need every test run again for each; the functions are the point.
  ignoreStatic: true,
  timeoutMS: 10000,
  ignorePatterns: ['.vscode-test', '.claude-test', '.codex-test', 'out', 'dist', '.scratch', 'test-artifacts', '.rawr'],
  mutate: scope.mutate,
  mochaOptions: {
    spec: scope.tests.map((t) => `out/test/${t}.test.js`),
    require: ['out/test/support/vscode/register.js'],
    'no-config': true,
  },
  reporters: ['clear-text', 'json', 'progress-append-only'],
  jsonReporter: { fileName: `test-artifacts/mutation/${name}.json` },
  tempDirName: 'test-artifacts/stryker-tmp',
  cleanTempDir: true,
};
