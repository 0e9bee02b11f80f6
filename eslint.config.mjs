// ESLint (flat config): typescript-eslint's recommended rules (and two type-aware ones) over the sources, the tests, the webview
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
  // Type-aware rules (typescript-eslint's project service reads tsconfig.json): a switch over a union
  // names every member or has a default, and a promise is awaited, returned, or explicitly `void`ed (a
  // forgotten one loses its error and its ordering).
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A default does not stand for the members a switch forgot: each is named (or the default is `never`).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: true }],
      '@typescript-eslint/no-floating-promises': 'error',
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
  // Tests read raw recordings and hook outputs as untyped JSON, and load compiled CommonJS helpers; a
  // test's small interpreter of effects handles the few it needs and lets a default take the rest.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: true }],
    },
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
