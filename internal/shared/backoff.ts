/** Exponential backoff: how long to wait before a retry. */
export interface Backoff {
  /** The delay before the first retry. */
  baseMs: number;
  /** No delay exceeds this. */
  maxMs: number;
  /**
   * Fraction of the delay taken off at random (0 = none): many waiters that failed together (a core
   * restart, a Redis outage) then retry spread out instead of in step.
   */
  jitter: number;
}

/**
 * Delay before retry `attempt` (1 = the first retry; 0 or less = retry at once): base·2^(attempt−1),
 * capped at maxMs, minus up to `jitter` of it. `random` returns [0, 1) like Math.random; tests pass a
 * constant to make the delay exact.
 */
export function backoffDelayMs(attempt: number, b: Backoff, random: () => number = Math.random): number {
  if (attempt <= 0) return 0;
  const capped = Math.min(b.maxMs, b.baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(capped * (1 - b.jitter * random()));
}
