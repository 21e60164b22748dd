import { describe, expect, it } from 'vitest';
import { listAllPages } from './downstream-pages.js';

describe('listAllPages', () => {
  it('follows nextCursor through every page', async () => {
    const pages: Record<string, { items: { n: number }[]; nextCursor?: string }> = {
      '': { items: [{ n: 1 }], nextCursor: 'b' },
      b: { items: [{ n: 2 }], nextCursor: 'c' },
      c: { items: [{ n: 3 }] },
    };
    const asked: string[] = [];
    const all = await listAllPages('s', 'x/list', 'items', async (c) => {
      asked.push(c ?? '');
      const page = pages[c ?? ''];
      if (!page) throw new Error(`no page for cursor ${c}`);
      return page;
    });
    expect(all.map((i) => i.n)).toEqual([1, 2, 3]);
    expect(asked).toEqual(['', 'b', 'c']);
  });
  it('stops a looping cursor and a runaway page count with a clear error', async () => {
    await expect(listAllPages('s', 'x/list', 'items', async (c) => ({ items: [], nextCursor: c === 'a' ? 'b' : 'a' }))).rejects.toThrow(
      /repeated x\/list cursor "a"/,
    );
    let n = 0;
    await expect(
      listAllPages('s', 'x/list', 'items', async () => ({ items: [], nextCursor: `c${n++}` }), { maxPages: 5, maxItems: 10 }),
    ).rejects.toThrow(/more than 5 pages/);
  });
  it('rejects a page without the list field', async () => {
    await expect(listAllPages('s', 'x/list', 'items', async () => ({ other: [] }))).rejects.toThrow(/without a "items" array/);
  });
});
