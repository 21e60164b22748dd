import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../cursor.js';
import { page } from './paginate.js';
import { SnapshotHistory } from './snapshot-history.js';
import { caught } from '../../../../test/support/aggregator.js';

interface Snap {
  etag: string;
  items: string[];
}
const items = (s: Snap): readonly string[] => s.items;

function snap(etag: string, n: number): Snap {
  return { etag, items: Array.from({ length: n }, (_, i) => `${etag}-${i}`) };
}

function walk(
  h: SnapshotHistory<Snap>,
  size: number,
  between?: (pageNo: number) => void,
): { all: string[]; etags: Set<string>; pages: number } {
  const all: string[] = [];
  const etags = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    const p = page(h, cursor, size, items);
    expect(p.items.length).toBeLessThanOrEqual(size);
    all.push(...p.items);
    etags.add(p.etag);
    cursor = p.nextCursor;
    pages++;
    between?.(pages);
  } while (cursor !== undefined && pages < 1000);
  return { all, etags, pages };
}

describe('page', () => {
  it('pages through everything exactly once; the last page has no nextCursor', () => {
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 60 });
    h.push(snap('a', 10));
    const r = walk(h, 3);
    expect(r.all).toEqual(snap('a', 10).items);
    expect(r.pages).toBe(4);
    const exact = walk(h, 5);
    expect(exact.pages).toBe(2);
    expect(page(h, undefined, 100, items)).toEqual({ items: snap('a', 10).items, etag: 'a' });
    h.push(snap('empty', 0));
    expect(page(h, undefined, 5, items)).toEqual({ items: [], etag: 'empty' });
  });

  it('keeps a walk on the snapshot it started on while newer ones are published', () => {
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 60 });
    h.push(snap('a', 10));
    const r = walk(h, 4, (n) => h.push(snap(`changed${n}`, 3 + n)));
    expect(r.all).toEqual(snap('a', 10).items);
    expect([...r.etags]).toEqual(['a']);
    expect(page(h, undefined, 100, items).etag).toBe('changed3');
  });

  it('fails an expired cursor with CURSOR_EXPIRED', () => {
    let t = 0;
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 5, now: () => t });
    h.push(snap('a', 10));
    const first = page(h, undefined, 4, items);
    h.push(snap('b', 10));
    t += 5_000;
    const e = caught(() => page(h, first.nextCursor, 4, items));
    expect(e.reason).toBe('CURSOR_EXPIRED');
    expect(e.message).toBe('cursor refers to a listing that is no longer kept; list again from the start');
  });

  it('rejects malformed cursors, foreign kinds, offsets past the end and bad page sizes', () => {
    const h = new SnapshotHistory<Snap>({ retentionSeconds: 60 });
    h.push(snap('a', 10));
    expect(caught(() => page(h, 'garbage!!', 4, items)).reason).toBe('INVALID_ARGUMENT');
    expect(caught(() => page(h, 'Zm9vYmFy', 4, items)).reason).toBe('INVALID_ARGUMENT');
    const foreign = page(h, undefined, 4, items, 'prompts').nextCursor;
    const e = caught(() => page(h, foreign, 4, items, 'tools'));
    expect(e.reason).toBe('INVALID_ARGUMENT');
    expect(e.message).toMatch(/belongs to a prompts listing/);
    expect(caught(() => page(h, encodeCursor({ etag: 'a', offset: 11, kind: 'list' }), 4, items)).reason).toBe('INVALID_ARGUMENT');
    for (const size of [0, -1, 1.5, Number.NaN]) expect(caught(() => page(h, undefined, size, items)).reason).toBe('INVALID_ARGUMENT');
  });

  it('reports an index with no snapshot yet as UNAVAILABLE', () => {
    expect(caught(() => page(new SnapshotHistory<Snap>({ retentionSeconds: 1 }), undefined, 4, items)).reason).toBe('UNAVAILABLE');
  });
});
