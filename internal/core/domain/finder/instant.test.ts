import { describe, expect, it } from 'vitest';
import { parseInstant } from './instant.js';

describe('parseInstant', () => {
  it('agrees with Date.parse on canonical UTC strings across eras and leap years', () => {
    let seed = 42;
    const rnd = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      const t = Math.floor((rnd() - 0.3) * 8e12);
      const iso = new Date(t).toISOString();
      if (!iso.startsWith('+') && !iso.startsWith('-')) expect(parseInstant(iso), iso).toBe(Date.parse(iso));
    }
    expect(parseInstant('2000-02-29T12:00:00Z')).toBe(Date.parse('2000-02-29T12:00:00Z'));
    expect(parseInstant('2024-06-01T09:00:00.5Z')).toBe(Date.parse('2024-06-01T09:00:00.5Z'));
    expect(parseInstant('2024-13-01T00:00:00Z')).toBeNaN();
    expect(parseInstant('2024-06-01T09:0a:00Z')).toBeNaN();
  });
  it('falls back to Date.parse for other forms', () => {
    expect(parseInstant('2024-06-01T10:00:00+02:00')).toBe(Date.UTC(2024, 5, 1, 8));
    expect(parseInstant('2024-06-01')).toBe(Date.UTC(2024, 5, 1));
    expect(parseInstant('not a date')).toBeNaN();
    expect(parseInstant('2023-02-29T00:00:00Z')).toBe(Date.parse('2023-02-29T00:00:00Z'));
  });
});
