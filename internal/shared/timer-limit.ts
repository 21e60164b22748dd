/**
 * Node keeps a timer's delay in a signed 32-bit millisecond count: a longer delay is replaced by 1 ms
 * (with a TimeoutOverflowWarning), so a "very long" timeout fires at once. Every timer of the product
 * goes through these helpers, and every duration of the profile store is bounded by
 * MAX_DURATION_SECONDS in validation.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The longest duration a store may give (about 24.8 days): the longest timer Node can run. */
export const MAX_DURATION_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/** A delay Node runs as given: within 0 … MAX_TIMER_MS (NaN counts as 0). */
export function timerDelay(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

/** setTimeout with the delay capped at Node's limit instead of firing at once. */
export function cappedTimeout(fn: () => void, ms: number): NodeJS.Timeout {
  return setTimeout(fn, timerDelay(ms));
}

/** setInterval with the period capped at Node's limit. */
export function cappedInterval(fn: () => void, ms: number): NodeJS.Timeout {
  return setInterval(fn, timerDelay(ms));
}

/** A promise that settles after `ms` (capped); `unref` lets the process exit meanwhile. */
export function cappedDelay(ms: number, opts: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const t = cappedTimeout(resolve, ms);
    if (opts.unref) t.unref();
  });
}
