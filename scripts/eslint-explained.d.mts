import type { ESLint } from 'eslint';

/** The local `explained/*` rules (scripts/eslint-explained.mjs). */
export declare const explainedPlugin: ESLint.Plugin;
