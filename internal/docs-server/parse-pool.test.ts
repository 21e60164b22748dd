import { describe, expect, it } from 'vitest';
import { ParsePool } from './parse-pool.js';

describe('ParsePool', () => {
  it('runs at most `size` at once; the others wait in order until a slot is released', async () => {
    const pool = new ParsePool();
    const order: number[] = [];
    const releases = await Promise.all([pool.acquire(2), pool.acquire(2)]);
    const third = pool.acquire(2).then((r) => (order.push(3), r));
    const fourth = pool.acquire(2).then((r) => (order.push(4), r));
    await Promise.resolve();
    expect(order).toEqual([]);
    releases[0]!();
    releases[0]!(); // a second call releases nothing more
    const r3 = await third;
    expect(order).toEqual([3]);
    releases[1]!();
    const r4 = await fourth;
    expect(order).toEqual([3, 4]);
    r3();
    r4();
  });
});
