import { describe, expect, it } from 'vitest';
import { isValidDpeUri } from '../../../contract/finder/dpe-uri.js';
import { organizeFinder, sortDocuments } from './organize.js';
import { doc } from '../../../../test/support/finder-docs.js';
import { must } from '../../../shared/must.js';

let seed = 99;
const rnd = (k: number): number => Math.floor(((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * k);

describe('organizeFinder pages', () => {
  // Only the groups a page overlaps are time-sorted; every page must still be the slice of the full order.
  it('every page is the matching slice of the full order', () => {
    const stamps = Array.from({ length: 25 }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString());
    const docs = Array.from({ length: 400 }, (_, i) => doc(`s${rnd(6)}`, `d${i}`, rnd(8) === 0 ? {} : { last_modified: stamps[rnd(25)] }));
    const order = ['s4', 's1'];
    const full = sortDocuments(docs, order).map((d) => d.doc_ref);
    for (const [offset, limit] of [
      [0, 20],
      [13, 50],
      [60, 1],
      [65, 140],
      [199, 2],
      [390, 20],
      [399, 1],
      [0, 400],
      [250, 0],
    ] satisfies [number, number][]) {
      const r = organizeFinder(docs, { offset, limit }, order);
      expect(r.total_count).toBe(400);
      expect(
        r.documents.map((d) => d.doc_ref),
        `offset ${offset} limit ${limit}`,
      ).toEqual(full.slice(offset, offset + limit));
    }
  });

  it('filters before paging, and pages over the filtered order', () => {
    const docs = Array.from({ length: 200 }, (_, i) =>
      doc(`s${i % 5}`, `d${i}`, { file_type: i % 3 ? 'pdf' : 'md', last_modified: new Date(Date.UTC(2024, 0, 1, i % 17)).toISOString() }),
    );
    const md = docs.filter((d) => d.file_type === 'md');
    const full = sortDocuments(md, ['s3']).map((d) => d.doc_ref);
    const r = organizeFinder(docs, { file_type: 'md', offset: 10, limit: 25 }, ['s3']);
    expect(r.total_count).toBe(md.length);
    expect(r.documents.map((d) => d.doc_ref)).toEqual(full.slice(10, 35));
  });
});

describe('organizeFinder URI check', () => {
  it('drops exactly the documents whose uri the full parser rejects', () => {
    const parts = [
      'a',
      'B',
      '0',
      '/',
      '%2F',
      '%41',
      '%C3%A9',
      '%e4',
      '%zz',
      '%',
      '?',
      '?format=text',
      '?limit=0',
      '#x',
      ' ',
      'é',
      '~',
      '.',
      '-',
      '+',
      'pages/0',
      'pages/01',
      'elements/x',
      '//',
      '\u0001',
    ];
    const hosts = ['dpe://s', 'dpe://S.x', 'dpe://', 'DPE://s', 'dpe:/s', 'file://s', 'dpe://s/'];
    const docs = Array.from({ length: 3000 }, (_, i) => {
      let uri = must(hosts[rnd(hosts.length)], 'host');
      for (let k = rnd(6); k > 0; k--) uri += must(parts[rnd(parts.length)], 'part');
      return { ...doc('s', `d${i}`), uri };
    });
    const want = docs.filter((d) => isValidDpeUri(d.uri)).map((d) => d.doc_ref);
    expect(want.length).toBeGreaterThan(300);
    expect(want.length).toBeLessThan(2700);
    const got = organizeFinder(docs, { limit: 3000 }, []).documents.map((d) => d.doc_ref);
    expect(got.sort()).toEqual(want.sort());
  });
});

describe('organizeFinder keywords', () => {
  it('matches exactly what lower-casing and substring search match, for ASCII and non-ASCII text', () => {
    const pieces = [
      'Budget',
      'BUDGET',
      'bud',
      'get',
      'K7',
      'k',
      '\u212a7' /* Kelvin sign + 7 */,
      'İ',
      'i̇x',
      'ß',
      'SS',
      'a.b',
      'a-b',
      'x*y',
      ' ',
      'Straße',
      'é',
      'É',
      '(',
      '\\',
    ];
    const pick = (n: number): string => Array.from({ length: n }, () => pieces[rnd(pieces.length)]).join('');
    const docs = Array.from({ length: 1500 }, (_, i) =>
      doc('s', `d${i}`, { title: pick(3), keywords: [pick(1), pick(2)], summary: pick(4) }),
    );
    const queries = [
      ['budget'],
      ['k7'],
      ['bud', 'zzz'],
      ['i̇x'],
      ['ss'],
      ['straße'],
      ['é'],
      ['a.b'],
      ['a-b', 'x*y'],
      ['('],
      ['\\'],
      ['KELVIN', 'k'],
    ];
    for (const q of queries) {
      const kws = q.map((k) => k.toLowerCase());
      const hit = (f: string): boolean => kws.some((k) => f.toLowerCase().includes(k));
      const want = docs.filter((d) => hit(d.title) || (d.keywords ?? []).some(hit) || hit(d.summary ?? '')).map((d) => d.doc_ref);
      const got = organizeFinder(docs, { keywords: q, limit: 1500 }, []).documents.map((d) => d.doc_ref);
      expect(got.sort(), JSON.stringify(q)).toEqual(want.sort());
    }
  });
});
