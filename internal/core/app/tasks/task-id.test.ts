import { describe, expect, it } from 'vitest';
import { newTaskId } from './task-id.js';

describe('newTaskId', () => {
  it('draws again when the id would start with "-" (a first byte of 0xf8–0xfb)', () => {
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0xfb), Buffer.alloc(16, 0x41)];
    expect(draws[0]?.toString('base64url').startsWith('-')).toBe(true);
    const id = newTaskId(() => draws.shift() ?? Buffer.alloc(16));
    expect(id).toBe(Buffer.alloc(16, 0x41).toString('base64url'));
    expect(draws).toEqual([]);
  });

  it('gives 22 base64url characters of 128 random bits, none starting with "-"', () => {
    const ids = Array.from({ length: 2000 }, () => newTaskId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  });
});
