// ESLint (flat config): typescript-eslint's recommended rules over the sources, the tests, the webview
// script and the build scripts, plus the architecture rule the design card asks for: src/core never
// imports vscode (the core runs in the CLI, in replay and in the core process, where there is no
// vscode module). `npm test` runs it as its first tier.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.vscode-test/**', 'test-artifacts/**', 'media/vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/core is vscode-free: return effects as data and let src/host execute them.' }],
          patterns: [{ group: ['**/host/**', '**/extension', '**/extension.*'], message: 'src/core must not depend on the extension host layer.' }],
        },
      ],
    },
  },
  // Tests read raw recordings and hook outputs as untyped JSON, and load compiled CommonJS helpers.
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  // Plain JavaScript: the extension-host suites and scripts are CommonJS or ESM run by Node; media/ runs in the webview.
  {
    files: ['test/**/*.js', 'test/**/*.mjs', 'scripts/**/*.js', 'scripts/**/*.mjs', 'scripts/**/*.cjs', '*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.mocha } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['media/**/*.js'],
    languageOptions: { globals: { ...globals.browser, acquireVsCodeApi: 'readonly' } },
  },
);
