import { describe, expect, it } from 'vitest';
import { ChurnMap } from './churn-map.js';

/** A seeded generator, so a failing sequence can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

/**
 * `expect(a, what).toBe(b)`, but only called on a mismatch: an expect costs tens of microseconds, and these
 * loops check ~200,000 values (it made this file take ~25 s on a loaded machine); the failure reads the same.
 */
function same(actual: unknown, expected: unknown, what: string): void {
  if (!Object.is(actual, expected)) expect(actual, what).toBe(expected);
}

/** Runs the same operations on a ChurnMap and a Map and checks they agree after each one. */
function agreeWithMap(ops: number, nextKey: (r: () => number) => number | string, seed: number): void {
  const r = rng(seed);
  const ours = new ChurnMap<number | string, number>();
  const ref = new Map<number | string, number>();
  for (let op = 0; op < ops; op++) {
    const key = nextKey(r);
    if (r() < 0.55) {
      ours.set(key, op);
      ref.set(key, op);
    } else {
      same(ours.delete(key), ref.delete(key), `delete ${String(key)} at op ${op}`);
    }
    same(ours.size, ref.size, `size at op ${op}`);
    const probe = nextKey(r);
    same(ours.get(probe), ref.get(probe), `get ${String(probe)} at op ${op}`);
  }
  expect(ours.values().sort((a, b) => a - b)).toEqual([...ref.values()].sort((a, b) => a - b));
  for (const [k, v] of ref) same(ours.get(k), v, `get ${String(k)} at the end`);
}

describe('ChurnMap', () => {
  it('agrees with Map on a sliding window of sequential ids (requests in flight)', () => {
    let next = 0;
    const r = rng(1);
    const ours = new ChurnMap<number, number>();
    const ref = new Map<number, number>();
    const live: number[] = [];
    for (let op = 0; op < 20_000; op++) {
      if (live.length < 16 || r() < 0.5) {
        const id = 2 ** 40 + next++;
        ours.set(id, op);
        ref.set(id, op);
        live.push(id);
      } else {
        // Answers come back out of order.
        const [id] = live.splice(Math.floor(r() * live.length), 1);
        same(ours.delete(id), true, `delete ${String(id)} at op ${op}`);
        ref.delete(id!);
      }
      same(ours.size, ref.size, `size at op ${op}`);
    }
    for (const [k, v] of ref) same(ours.get(k), v, `get ${k} at the end`);
    expect(ours.get(2 ** 40 + next)).toBeUndefined();
  });

  it('agrees with Map on random small integers (collisions, deletes in probe runs)', () => {
    agreeWithMap(30_000, (r) => Math.floor(r() * 300), 2);
  });

  it('agrees with Map on strings, negative, fractional and large numbers', () => {
    const pool = ['a', 'b', 'req-1', 'req-2', '', '1', 1, -1, 0.5, 2 ** 60, -(2 ** 45), 'é', 'x'.repeat(40), 7, '7'];
    agreeWithMap(20_000, (r) => pool[Math.floor(r() * pool.length)]!, 3);
  });

  it('keeps 1 and "1" apart, and treats -0 as 0 (as Map does)', () => {
    const m = new ChurnMap<number | string, string>();
    m.set(1, 'number').set('1', 'string').set(-0, 'zero');
    expect([m.get(1), m.get('1'), m.get(0), m.size]).toEqual(['number', 'string', 'zero', 3]);
  });

  it('grows to thousands of entries and shrinks back, losing none', () => {
    const m = new ChurnMap<number, number>();
    for (let i = 0; i < 5000; i++) m.set(i * 7919, i);
    expect(m.size).toBe(5000);
    for (let i = 0; i < 4990; i++) same(m.delete(i * 7919), true, `delete ${i * 7919}`);
    expect(m.size).toBe(10);
    for (let i = 4990; i < 5000; i++) expect(m.get(i * 7919)).toBe(i);
    expect(m.values().sort((a, b) => a - b)).toEqual([4990, 4991, 4992, 4993, 4994, 4995, 4996, 4997, 4998, 4999]);
  });

  it('answers keys of other types (a peer sent an object as an id) with nothing, without throwing', () => {
    const m = new ChurnMap<number, string>();
    m.set(1, 'one');
    expect(m.get({ id: 1 })).toBeUndefined();
    expect(m.get(null)).toBeUndefined();
    expect(m.delete(true)).toBe(false);
    expect(m.size).toBe(1);
  });

  it('gives a snapshot of its values and empties on clear', () => {
    const m = new ChurnMap<string, number>();
    m.set('a', 1).set('b', 2);
    const snapshot = m.values();
    m.delete('a');
    expect(snapshot.sort()).toEqual([1, 2]);
    m.clear();
    expect([m.size, m.get('b'), m.values()]).toEqual([0, undefined, []]);
    m.set('c', 3);
    expect(m.get('c')).toBe(3);
  });
});
