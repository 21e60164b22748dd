import { parseArgs, type ParseArgsConfig } from 'node:util';
import { defaultStoreDir } from './store-location.js';
import { storeSocket } from './store-socket.js';

/** Flags every binary shares: --socket (MCPD_SOCKET) and --config (MCPD_CONFIG). */
export const COMMON_OPTIONS = {
  socket: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/**
 * --socket, else MCPD_SOCKET, else the store's socket: the one its running core recorded, its runtime.yaml
 * `socket:`, else the store's own default (store-socket.ts). Never another store's core.
 */
export function socketFrom(flag: string | undefined, env: NodeJS.ProcessEnv, configDir: string): Promise<string> {
  return storeSocket(flag, env, configDir);
}

export function configFrom(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.MCPD_CONFIG || defaultStoreDir(env, process.cwd());
}

/** parseArgs with a usage hint instead of a stack trace on a bad flag. */
export function parseOrExit<T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${usage}\n`);
    process.exit(2);
  }
}

/** --help and --version print to stdout like any CLI's (no session runs yet) and end with status 0. */
export function exitOnHelpOrVersion(values: { help?: boolean; version?: boolean }, usage: string, version: () => string): void {
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    process.exit(0);
  }
}

/**
 * `mcpdctl logs c | head -1`: once the reader is gone, writing fails with EPIPE. That is the reader's
 * "enough", not an error: end quietly with status 0 instead of an uncaught exception.
 */
export function exitQuietlyOnEpipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
