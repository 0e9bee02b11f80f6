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
