import type { ConfigIssue } from '../shared/errors.js';
import { readEnvFile } from './env-file.js';
import type { ParsedRuntime } from './runtime-parse.js';

/** Where `${NAME}` finds its value, in order, and how to say so when it finds none. */
export interface StoreVariables {
  variable(name: string): string | undefined;
  lookedIn: string;
}

/**
 * The store's own values first (runtime.yaml `env:`, then its `envFile:`), then `env` — the core's
 * environment, which the core makes the same whoever started it (the user's login environment).
 */
export async function storeVariables(
  rt: ParsedRuntime,
  runtimeFile: string,
  env: NodeJS.ProcessEnv,
  envDescription: string | undefined,
  issues: ConfigIssue[],
): Promise<StoreVariables> {
  const fromFile = rt.envFile ? await readEnvFile(rt.envFile, runtimeFile, issues) : new Map<string, string>();
  const places = [
    ...(rt.env.size ? ['runtime.yaml env:'] : []),
    ...(rt.envFile ? [`the envFile ${rt.envFile.text}`] : []),
    envDescription ?? "mcpd's environment",
  ];
  return {
    variable: (n) => rt.env.get(n) ?? fromFile.get(n) ?? env[n],
    lookedIn: places.join(', '),
  };
}
