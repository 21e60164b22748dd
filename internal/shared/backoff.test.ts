import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from './backoff.js';

const b = { baseMs: 100, maxMs: 1000, jitter: 0.5 };

describe('backoffDelayMs', () => {
  it('retries at once first, then doubles up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 60].map((a) => backoffDelayMs(a, b, () => 0))).toEqual([0, 100, 200, 400, 800, 1000, 1000]);
  });

  it('takes at most the jitter fraction off, never adds', () => {
    expect(backoffDelayMs(3, b, () => 0.999999)).toBe(200);
    expect(backoffDelayMs(3, b, () => 0.5)).toBe(300);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelayMs(6, b);
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(1000);
    }
  });

  it('spreads waiters that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelayMs(5, { baseMs: 1000, maxMs: 60_000, jitter: 0.2 })));
    expect(delays.size).toBeGreaterThan(1);
  });
});
