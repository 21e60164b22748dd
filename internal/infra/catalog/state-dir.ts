import { join, resolve } from 'node:path';

/** The core's state directory for a store (metadata cache, OAuth tokens): MCPD_STATE_DIR or <store>/.mcpd-state. */
export function stateDirFor(configDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.MCPD_STATE_DIR || join(resolve(configDir), '.mcpd-state');
}
