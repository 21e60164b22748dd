import type { LogFn } from '../infra/telemetry/logger.js';

/**
 * A rejection nobody handled is a bug in one request's path: the core logs it and keeps serving everyone
 * else instead of exiting. Uncaught exceptions stay fatal: after one, state may be half-updated.
 * Returns the uninstaller.
 */
export function keepRunningOnUnhandledRejections(log: LogFn): () => void {
  const onRejection = (reason: unknown) => log('error', 'unhandled rejection (a bug; the core keeps running)', { error: reason });
  process.on('unhandledRejection', onRejection);
  return () => void process.off('unhandledRejection', onRejection);
}
