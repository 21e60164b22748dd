// Type-aware lint (typescript-eslint, flat config). `make lint` runs it; the layer rules below are generated
// from scripts/layers.mjs, the one definition of the direction in docs/architecture.md. Import cycles stay
// in scripts/check-layers.mjs (ESLint core has no cycle rule and we add no import plugin for one check).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { CORE_LAYERS, DOMAIN_PACKAGES, DOOR, PURE_DIRS } from './scripts/layers.mjs';
import { explainedPlugin } from './scripts/eslint-explained.mjs';

// Node globals the scripts and benches use (no `globals` package: one less dependency to keep in step).
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'performance',
    'structuredClone',
    'fetch',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'globalThis',
  ].map((name) => [name, 'readonly']),
);

const unused = ['error', { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }];

// What a folder must not import, by relative import path: the core's upper layers, packages in pure folders,
// and test helpers, which no product file may reach. Products apart is checked by scripts/check-layers.mjs on
// resolved paths (folder names such as smcp/ recur inside contract/, so a path pattern cannot tell them
// apart). One rule entry per folder: flat config replaces, not merges, a rule's options.
const layerPatterns = (layer) =>
  Object.keys(CORE_LAYERS)
    .filter((other) => other !== layer && !CORE_LAYERS[layer].may.includes(other))
    .map((other) => ({
      regex: `^(\\.\\./)+${other}/`,
      message: `core ${layer} must not import core ${other}: the direction is app → infra → domain (docs/architecture.md, "Layers")`,
    }));
const purePattern = {
  regex: `^(?!\\.|${DOMAIN_PACKAGES.join('|')}$)`,
  message: `pure code (no I/O) imports no package but ${DOMAIN_PACKAGES.join(', ')}; put I/O in an adapter`,
};
// Faces are given the door, never Core (scripts/layers.mjs, DOOR): in app/, only the composition root imports core.ts.
const corePattern = {
  regex: '^(\\./|\\.\\./)core\\.js$',
  message:
    'a face is given the door (Door.for(face)), never Core: only the composition root and the door import core.ts (docs/architecture.md, "The door")',
};
const testPattern = { regex: '^(\\.\\./)+test/', message: 'product code must not import test helpers (they live under test/)' };
const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns: [...patterns, testPattern] }] });
const layerRules = [
  {
    files: ['internal/**/*.ts'],
    ignores: ['**/*.test.ts', 'internal/core/**', ...PURE_DIRS.map((d) => (d.endsWith('/') ? `${d}**` : d))],
    rules: restrict([]),
  },
  ...Object.keys(CORE_LAYERS).map((layer) => ({
    files: [`${CORE_LAYERS[layer].dir}**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: restrict([...layerPatterns(layer), ...(layer === 'domain' ? [purePattern] : []), ...(layer === 'app' ? [corePattern] : [])]),
  })),
  {
    files: DOOR.mayImportCore.map((p) => (p.endsWith('/') ? `${p}**/*.ts` : p)),
    ignores: ['**/*.test.ts'],
    rules: restrict(layerPatterns('app')),
  },
  ...PURE_DIRS.filter((d) => !d.startsWith('internal/core/')).map((d) => ({
    files: [d.endsWith('/') ? `${d}**/*.ts` : d],
    ignores: ['**/*.test.ts'],
    rules: restrict([purePattern]),
  })),
];

export default tseslint.config(
  // test/lint/explained-cases.ts breaks the rules on purpose: test/lint/explained-rules.test.ts lints it alone.
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'internal/contract/gen/**',
      '.tmp/**',
      'coverage/**',
      'vitest.config.ts',
      'test/lint/explained-cases.ts',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json', './web/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/no-unused-vars': unused,
      // The codebase uses `any` at SDK and JSON boundaries on purpose; strict mode already guards the rest.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-empty': ['error', { allowEmptyCatch: false }],
      // A `let` that closures read before its one assignment (set-after-construct) cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: nodeGlobals },
    rules: { 'no-unused-vars': unused, 'no-empty': ['error', { allowEmptyCatch: false }] },
  },
  // Product code says why a promise is not awaited and why an error may be dropped (decision 39).
  {
    files: ['cmd/**/*.ts', 'internal/**/*.ts', 'web/**/*.ts', 'web/**/*.tsx'],
    ignores: ['**/*.test.ts'],
    plugins: { explained: explainedPlugin },
    rules: { 'explained/fire-and-forget': 'error', 'explained/swallowed-error': 'error' },
  },
  // Products apart; inside the core, app → infra → domain; pure folders without I/O.
  ...layerRules,
);
