import type { ConfigIssue } from '../shared/errors.js';
import { loadStore } from './load-store.js';

/**
 * For `mcpd validate --config DIR`: every error in the store, empty when it loads with every server
 * (a server left out for a missing value is reported: the core would run without it). Command inputs run only
 * when asked (`--run-commands`): validating a store someone sent you must not run its commands.
 */
export async function validateStoreDir(dir: string, env: NodeJS.ProcessEnv = process.env, runCommands = false): Promise<ConfigIssue[]> {
  const r = await validateStore(dir, env, runCommands);
  return [...r.errors, ...r.warnings];
}

/**
 * The same, in two levels: `errors` keep the store from loading; `warnings` are values that are not to be
 * had here (an unset variable, an input without a value) — the core runs without that server until they
 * are, so CI checking an imported store need not fail on them (`mcpd validate --strict` does).
 */
export async function validateStore(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
  runCommands = false,
): Promise<{ errors: ConfigIssue[]; warnings: ConfigIssue[] }> {
  const r = await loadStore(dir, { env, scaffold: false, runCommands });
  return r.ok ? { errors: [], warnings: r.unresolved } : { errors: r.issues, warnings: [] };
}
