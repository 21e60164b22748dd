import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The core's state directory for a store (metadata cache, OAuth tokens): MCPD_STATE_DIR, else
 * `.mcpd-state` in the store's folder (the folder of --config when it names a file).
 */
export function stateDirFor(configDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.MCPD_STATE_DIR || join(storeFolder(configDir), '.mcpd-state');
}

export function storeFolder(configDir: string): string {
  const abs = resolve(configDir);
  return existsSync(abs) && statSync(abs).isFile() ? dirname(abs) : abs;
}
