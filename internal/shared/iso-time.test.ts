import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('is toISOString for every millisecond of a second, across seconds, days and years', () => {
    const starts = [0, 999, 1_000, Date.UTC(2026, 10, 29, 23, 59, 59, 0), Date.UTC(1999, 11, 31, 23, 59, 59, 0), Date.now()];
    for (const start of starts) for (let ms = start; ms < start + 2_001; ms += 7) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('alternating between two seconds gives each its own text', () => {
    const a = Date.UTC(2026, 0, 1, 0, 0, 0, 5);
    const b = Date.UTC(2026, 5, 1, 12, 30, 45, 999);
    for (let i = 0; i < 3; i++) {
      expect(isoTime(a)).toBe('2026-01-01T00:00:00.005Z');
      expect(isoTime(b)).toBe('2026-06-01T12:30:45.999Z');
    }
  });

  it('takes the general path outside what it caches (fractions, negatives, far years)', () => {
    for (const ms of [1.5, -1, -86_400_001, 253402300800000, 8.64e15]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
