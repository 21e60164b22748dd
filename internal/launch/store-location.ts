import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** A directory holds a profile store when it has profiles/ or callers.yaml (what the loader looks for). */
export function holdsStore(dir: string): boolean {
  return existsSync(join(dir, 'profiles')) || existsSync(join(dir, 'callers.yaml'));
}

/** The user's own store: `$XDG_CONFIG_HOME/mcpd`, else `~/.config/mcpd` (decision 24 in docs/decisions.md). */
export function userStoreDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || env.USERPROFILE || '.', '.config');
  return join(base, 'mcpd');
}

/**
 * Without --config / MCPD_CONFIG: the current directory when it holds a store (a project's own store,
 * this repository's included), else the user's store, which the core scaffolds on first run — never a
 * starter store in whatever directory the user happens to be in.
 */
export function defaultStoreDir(env: NodeJS.ProcessEnv, cwd: string): string {
  return holdsStore(cwd) ? cwd : userStoreDir(env);
}
