// The user settings of a throw-away code-server profile: quiet (no tips, updates, telemetry or trust
// prompts) and with git limited to the opened folder. Shared by the test harness and `npm start`.
export const QUIET_USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'git.openRepositoryInParentFolders': 'never',
};

/**
 * Headless Chromium's flags for the workbench (the real-VS-Code tier and the README smoke test): no sandbox
 * (root in CI), no GPU, and none of Chromium's own background connections, which this offline machine
 * refuses many at a time.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
