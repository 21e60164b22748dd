import { BridgeError } from '../contract/desktop-bridge/errors.js';

/** Time as the host sees it: injectable so waitUntil and token expiry are testable without waiting. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(abortReason(signal));
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal));
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};

/** The contract error an aborted signal stands for (abort or meta.timeoutMs). */
export function abortReason(signal: AbortSignal): BridgeError {
  const r: unknown = signal.reason;
  return r instanceof BridgeError ? r : new BridgeError('DESKTOP_ABORTED', 'the request was aborted');
}

/** Rejects when the signal aborts; lets a long backend call be abandoned without waiting for it. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
  });
}
