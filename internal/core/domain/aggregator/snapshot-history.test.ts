import { describe, expect, it } from 'vitest';
import { SnapshotHistory } from './snapshot-history.js';

interface Snap {
  etag: string;
  n: number;
}

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('SnapshotHistory', () => {
  it('keeps superseded snapshots for the retention, counted from when they were superseded', () => {
    const c = clock();
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 10, now: c.now });
    h.push({ etag: 'a', n: 1 });
    c.advance(60_000); // the latest never expires
    expect(h.get('a')?.n).toBe(1);
    h.named('a');
    h.push({ etag: 'b', n: 2 });
    c.advance(9_999);
    expect(h.get('a')?.n).toBe(1);
    c.advance(1);
    expect(h.get('a')).toBeUndefined();
    expect(h.get('b')?.n).toBe(2);
    expect(h.latest()?.etag).toBe('b');
    expect(h.size).toBe(1);
  });

  it('is bounded in count and evicts the oldest superseded first, never the latest', () => {
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 3600, maxCount: 3 });
    for (let i = 0; i < 10; i++) {
      h.push({ etag: `e${i}`, n: i });
      h.named(`e${i}`);
    }
    expect(h.size).toBe(3);
    expect(['e7', 'e8', 'e9'].map((e) => h.get(e)?.n)).toEqual([7, 8, 9]);
    expect(h.get('e6')).toBeUndefined();
    const one = new SnapshotHistory<Snap>({ retentionSeconds: 3600, maxCount: 1 });
    one.push({ etag: 'x', n: 0 });
    one.named('x');
    one.push({ etag: 'y', n: 1 });
    expect(one.latest()?.etag).toBe('y');
    expect(one.get('y')?.n).toBe(1);
    expect(one.get('x')).toBeUndefined();
  });

  it('replaces the latest in place on the same etag and revives an older etag as latest', () => {
    const c = clock();
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 10, now: c.now });
    h.push({ etag: 'a', n: 1 });
    h.named('a');
    h.push({ etag: 'a', n: 2 });
    expect(h.size).toBe(1);
    expect(h.get('a')?.n).toBe(2);
    h.push({ etag: 'b', n: 3 });
    h.push({ etag: 'a', n: 4 });
    c.advance(20_000);
    expect(h.latest()?.n).toBe(4);
    expect(h.get('a')?.n).toBe(4);
    expect(h.get('b')).toBeUndefined();
  });

  it('drops a superseded snapshot no cursor names at once, and keeps the ones a cursor names', () => {
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 3600 });
    h.push({ etag: 'a', n: 1 });
    h.push({ etag: 'b', n: 2 });
    expect(h.get('a')).toBeUndefined();
    h.named('b');
    h.push({ etag: 'c', n: 3 });
    h.push({ etag: 'd', n: 4 });
    expect(h.get('b')?.n).toBe(2);
    expect(h.get('c')).toBeUndefined();
    expect(h.size).toBe(2);
    // A named snapshot that comes back as the latest stays named: its cursors still work after the next change.
    h.push({ etag: 'b', n: 5 });
    h.push({ etag: 'e', n: 6 });
    expect(h.get('b')?.n).toBe(5);
    h.named('gone');
    expect(h.size).toBe(2);
  });

  it('rejects nonsense options', () => {
    expect(() => new SnapshotHistory<Snap>({ retentionSeconds: -1 })).toThrow(/retentionSeconds/);
    expect(() => new SnapshotHistory<Snap>({ retentionSeconds: 1, maxCount: 0 })).toThrow(/maxCount/);
  });
});
