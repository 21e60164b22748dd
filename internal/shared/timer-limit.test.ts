import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, cappedTimeout, timerDelay } from './timer-limit.js';

describe('capped timers', () => {
  it('keeps delays within what Node runs', () => {
    expect(timerDelay(3_000_000_000)).toBe(MAX_TIMER_MS);
    expect(timerDelay(1500)).toBe(1500);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
    expect(timerDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_MS);
  });

  it('a timer longer than Node’s limit waits instead of firing at once', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    let fired = false;
    const long = cappedTimeout(() => (fired = true), 3_000_000 * 1000);
    // An uncapped one would be run as a 1 ms timer: it would fire before this 20 ms one.
    await new Promise<void>((r) => setTimeout(r, 20));
    clearTimeout(long);
    process.off('warning', onWarning);
    expect(fired).toBe(false);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});
