// `npm run package:cli`: the ways in for a terminal user, built from the bundles in dist/ (run
// `npm run build` first), each running with no node_modules and installing the same fast hook (the bash
// client dist/hook.sh with its resident engine, src/cli/hookCommand.ts):
//   build/cli/                 the self-contained CLI package `@rawr-ai/cli` (bin `rawr`: the npm name
//                              `rawr` is someone else's), packed to build/rawr-ai-cli-<version>.tgz
//                              (`npm install -g build/rawr-ai-cli-*.tgz`, or from the registry once published);
//   build/claude-plugin/       a Claude Code marketplace folder holding the plugin `rawr`
//                              (`claude plugin marketplace add build/claude-plugin` then
//                              `claude plugin install rawr@rawr`): its hooks/hooks.json runs the same bash
//                              client through ${CLAUDE_PLUGIN_ROOT}. A plugin carries hooks but not a
//                              project setting such as autoCompactWindow (docs/claude-code.md): steering is
//                              turned on per project by `rawr hooks claude install --write --no-hooks`,
//                              which the plugin's CLI runs too.
// Prints what it wrote. Nothing here reads the network.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const RUNTIME = ['cli.js', 'hook.js', 'hookEngine.js', 'hook.sh', 'package.json'];
for (const f of RUNTIME) if (!existsSync(join(root, 'dist', f))) throw new Error(`dist/${f} missing: run npm run build first`);

/** The CLI runtime (the bundles, the bash client, the shipped prompts) copied into `dir`. */
function runtimeInto(dir) {
  mkdirSync(join(dir, 'dist'), { recursive: true });
  for (const f of RUNTIME) copyFileSync(join(root, 'dist', f), join(dir, 'dist', f));
  chmodSync(join(dir, 'dist', 'hook.sh'), 0o755);
  chmodSync(join(dir, 'dist', 'cli.js'), 0o755);
  cpSync(join(root, 'prompts'), join(dir, 'prompts'), { recursive: true, filter: (p) => !p.includes('/.') });
  copyFileSync(join(root, 'LICENSE'), join(dir, 'LICENSE'));
}

const build = join(root, 'build');
rmSync(build, { recursive: true, force: true });

// 1. The CLI package.
const cli = join(build, 'cli');
runtimeInto(cli);
writeFileSync(
  join(cli, 'package.json'),
  `${JSON.stringify(
    {
      name: '@rawr-ai/cli',
      version: manifest.version,
      description:
        "rawr's command line: steer Claude Code's and Codex's compaction to phase boundaries (rawr hooks claude install --write), replay and handoff.",
      license: manifest.license,
      repository: manifest.repository,
      bin: { rawr: 'dist/cli.js' },
      files: ['dist/', 'prompts/', 'LICENSE', 'README.md'],
      engines: { node: manifest.engines.node },
    },
    null,
    2,
  )}\n`,
);
writeFileSync(
  join(cli, 'README.md'),
  `# @rawr-ai/cli\n\nrawr's command line, with no dependencies. In a project:\n\n    rawr hooks claude install --write    # Claude Code: hooks + steering, in .claude/settings.local.json\n    rawr hooks claude uninstall --purge  # takes all of it back\n\nSee docs/claude-code.md in ${manifest.repository.url}.\n`,
);
const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', build], { cwd: cli, encoding: 'utf8' }).trim().split('\n').pop();

// 2. The Claude Code plugin, in a marketplace folder of its own.
const market = join(build, 'claude-plugin');
const plugin = join(market, 'rawr');
runtimeInto(plugin);
mkdirSync(join(plugin, '.claude-plugin'), { recursive: true });
writeFileSync(
  join(plugin, '.claude-plugin', 'plugin.json'),
  `${JSON.stringify({ name: 'rawr', version: manifest.version, description: manifest.description, license: manifest.license, repository: manifest.repository.url }, null, 2)}\n`,
);
// The same events, matchers and timeouts as `rawr hooks claude install` (src/core/hooks/shared/hooksConfig.ts
// CLAUDE_HOOKS), run by the same bash client; `node` from PATH (a plugin cannot name this machine's).
const { CLAUDE_HOOKS } = await import(join(root, 'out/src/core/hooks/shared/hooksConfig.js'));
const hooks = {};
for (const h of CLAUDE_HOOKS) {
  hooks[h.event] = [
    {
      ...(h.matcher !== undefined ? { matcher: h.matcher } : {}),
      hooks: [{ type: 'command', command: `/bin/bash -p "\${CLAUDE_PLUGIN_ROOT}/dist/hook.sh" node hooks claude ${h.event}`, timeout: h.timeout }],
    },
  ];
}
mkdirSync(join(plugin, 'hooks'), { recursive: true });
writeFileSync(join(plugin, 'hooks', 'hooks.json'), `${JSON.stringify({ hooks }, null, 2)}\n`);
mkdirSync(join(market, '.claude-plugin'), { recursive: true });
writeFileSync(
  join(market, '.claude-plugin', 'marketplace.json'),
  `${JSON.stringify({ name: 'rawr', owner: { name: 'rawr' }, plugins: [{ name: 'rawr', source: './rawr', description: manifest.description }] }, null, 2)}\n`,
);

console.log(`build/cli/ (@rawr-ai/cli ${manifest.version}) → build/${packed}`);
console.log(`build/claude-plugin/ (marketplace "rawr", plugin rawr: ${readdirSync(join(plugin, 'dist')).length} runtime files, hooks/hooks.json)`);
