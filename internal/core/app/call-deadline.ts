import type { CallOptions } from '../../contract/control/control.js';
import { cappedTimeout } from '../../shared/timer-limit.js';

/**
 * Waits for `work` at most until the call's deadline (`timeoutMs`) or its abort; true when it settled.
 * What the call waits for before it reaches a server (finding its tool's name) must not outlast the
 * answer the caller is waiting for: past the deadline the call is answered with what is known then.
 */
export async function settledBeforeDeadline(work: Promise<unknown>, opts: Pick<CallOptions, 'signal' | 'timeoutMs'>): Promise<boolean> {
  const { signal, timeoutMs } = opts;
  if (signal?.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<false>((resolve) => {
    if (timeoutMs !== undefined && timeoutMs > 0) timer = cappedTimeout(() => resolve(false), timeoutMs);
    onAbort = () => resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then(() => true as const), ended]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
