import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { organizeFinder } from './organize.js';
import type { DPEDocumentSummary } from '../../../contract/finder/types.js';
import { doc } from '../../../../test/support/finder-docs.js';
import { must } from '../../../shared/must.js';

const refs = (r: { documents: DPEDocumentSummary[] }): string[] => r.documents.map((d) => d.doc_ref);

describe('organizeFinder', () => {
  it('empty input → no documents, total_count 0', () => {
    expect(organizeFinder([], {}, [])).toEqual({ documents: [], total_count: 0 });
  });

  it('step 1: drops documents whose uri is not a valid dpe:// URI', () => {
    const docs = [doc('a', 'ok'), { ...doc('a', 'bad'), uri: 'file:///x' }, { ...doc('a', 'bad2'), uri: 'dpe://a/x?limit=0' }];
    expect(refs(organizeFinder(docs, {}, []))).toEqual(['ok']);
  });

  it('step 2: keywords OR-match title, keywords and summary case-insensitively', () => {
    const docs = [
      doc('a', 't', { title: 'Quarterly REPORT' }),
      doc('a', 'k', { keywords: ['finance', 'Budget'] }),
      doc('a', 's', { summary: 'Notes on the roadmap' }),
      doc('a', 'none', { title: 'Holiday', summary: 'beach' }),
    ];
    expect(refs(organizeFinder(docs, { keywords: ['report'] }, []))).toEqual(['t']);
    expect(refs(organizeFinder(docs, { keywords: ['budget'] }, []))).toEqual(['k']);
    expect(refs(organizeFinder(docs, { keywords: ['ROADMAP'] }, []))).toEqual(['s']);
    expect(refs(organizeFinder(docs, { keywords: ['report', 'roadmap', 'zzz'] }, [])).sort()).toEqual(['s', 't']);
    expect(organizeFinder(docs, { keywords: ['zzz'] }, []).total_count).toBe(0);
  });

  it('step 2: a keyword does not match across field boundaries; empty keywords are ignored', () => {
    const d = doc('a', 'x', { title: 'alpha', keywords: ['beta'] });
    expect(organizeFinder([d], { keywords: ['alpha beta'] }, []).total_count).toBe(0);
    expect(organizeFinder([d], { keywords: ['', '  '] }, []).total_count).toBe(1);
    expect(organizeFinder([d], { keywords: [] }, []).total_count).toBe(1);
  });

  it('step 3: file_type exact match; empty string = no filter', () => {
    const docs = [doc('a', 'p'), doc('a', 'x', { file_type: 'xlsx' })];
    expect(refs(organizeFinder(docs, { file_type: 'xlsx' }, []))).toEqual(['x']);
    expect(organizeFinder(docs, { file_type: 'XLSX' }, []).total_count).toBe(0);
    expect(organizeFinder(docs, { file_type: 'xls' }, []).total_count).toBe(0);
    expect(organizeFinder(docs, { file_type: '' }, []).total_count).toBe(2);
  });

  it('step 4: servers in serverOrder first in that order, the rest by name', () => {
    const docs = [doc('zeta', 'z'), doc('beta', 'b'), doc('alpha', 'a'), doc('mid', 'm'), doc('gamma', 'g')];
    expect(refs(organizeFinder(docs, {}, ['mid', 'zeta', 'mid', 'nodocs']))).toEqual(['m', 'z', 'a', 'b', 'g']);
    expect(refs(organizeFinder(docs, {}, []))).toEqual(['a', 'b', 'g', 'm', 'z']);
  });

  it('step 5: last_modified descending as instants within a server; unparseable and missing last; ties stable', () => {
    const docs = [
      doc('s', 'none1'),
      doc('s', 'old', { last_modified: '2024-01-01T00:00:00Z' }),
      doc('s', 'garbage', { last_modified: 'yesterday-ish' }),
      doc('s', 'offset', { last_modified: '2024-06-01T10:00:00+02:00' }), // 08:00Z
      doc('s', 'new', { last_modified: '2024-06-01T09:00:00.000Z' }),
      doc('s', 'tie1', { last_modified: '2024-03-01T00:00:00Z' }),
      doc('s', 'tie2', { last_modified: '2024-03-01T00:00:00.000Z' }),
      doc('s', 'none2'),
    ];
    expect(refs(organizeFinder(docs, { limit: 100 }, []))).toEqual(['new', 'offset', 'tie1', 'tie2', 'old', 'none1', 'garbage', 'none2']);
  });

  it('server rank dominates last_modified', () => {
    const docs = [
      doc('b', 'b-new', { last_modified: '2030-01-01T00:00:00Z' }),
      doc('a', 'a-old', { last_modified: '2000-01-01T00:00:00Z' }),
    ];
    expect(refs(organizeFinder(docs, {}, []))).toEqual(['a-old', 'b-new']);
    expect(refs(organizeFinder(docs, {}, ['b']))).toEqual(['b-new', 'a-old']);
  });

  it('step 6: offset/limit page after filtering; total_count before paging', () => {
    const docs = Array.from({ length: 30 }, (_, i) =>
      doc('s', `d${String(i).padStart(2, '0')}`, {
        last_modified: new Date(Date.UTC(2024, 0, 30 - i)).toISOString(),
        file_type: i % 3 === 0 ? 'md' : 'pdf',
      }),
    );
    const first = organizeFinder(docs, { file_type: 'pdf' }, []);
    expect(first.total_count).toBe(20);
    expect(first.documents).toHaveLength(20); // default limit 20
    const page = organizeFinder(docs, { file_type: 'pdf', offset: 5, limit: 3 }, []);
    expect(refs(page)).toEqual(['d08', 'd10', 'd11']); // every third (d00, d03 …) is md
    expect(page.total_count).toBe(20);
    expect(organizeFinder(docs, { limit: 0 }, [])).toEqual({ documents: [], total_count: 30 });
    expect(organizeFinder(docs, { offset: 30 }, [])).toEqual({ documents: [], total_count: 30 });
    expect(organizeFinder(docs, { offset: 1000 }, []).documents).toEqual([]);
    expect(organizeFinder(docs, { offset: 25, limit: 100 }, []).documents).toHaveLength(5);
  });

  it('rejects negative or fractional offset/limit with a clear error', () => {
    expect(() => organizeFinder([], { offset: -1 }, [])).toThrow(McpdError);
    expect(() => organizeFinder([], { limit: 1.5 }, [])).toThrow(/limit must be a non-negative integer, got 1.5/);
  });

  it('matches a straightforward reference sort, for narrow and very wide time spans', () => {
    let seed = 7;
    const rnd = (k: number): number => Math.floor(((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * k);
    for (const spanMs of [3_600_000, 8e12, 2.5e14]) {
      const stamps = Array.from({ length: 40 }, () =>
        new Date(Date.UTC(1, 0, 1) + (spanMs === 2.5e14 ? 0 : 6e13) + rnd(spanMs)).toISOString(),
      );
      const docs = Array.from({ length: 300 }, (_, i) =>
        doc(`s${rnd(4)}`, `d${i}`, rnd(10) === 0 ? { last_modified: rnd(2) ? 'junk' : undefined } : { last_modified: stamps[rnd(40)] }),
      );
      const t = (d: DPEDocumentSummary): number =>
        d.last_modified === undefined || Number.isNaN(Date.parse(d.last_modified)) ? -Infinity : Date.parse(d.last_modified);
      const order = ['s2', 's0'];
      const rank = (d: DPEDocumentSummary): number =>
        order.includes(d.server) ? order.indexOf(d.server) : 2 + ['s1', 's3'].indexOf(d.server);
      const want = docs
        .map((d, i) => ({ d, i }))
        .sort((a, b) => rank(a.d) - rank(b.d) || (t(a.d) === t(b.d) ? a.i - b.i : t(b.d) - t(a.d)))
        .map((x) => x.d.doc_ref);
      expect(refs(organizeFinder(docs, { limit: 1000 }, order)), `span ${spanMs}`).toEqual(want);
    }
  });

  it('does not mutate its input', () => {
    const docs = [doc('b', 'b'), doc('a', 'a')];
    organizeFinder(docs, {}, []);
    expect(refs({ documents: docs })).toEqual(['b', 'a']);
  });

  // How fast is measured in bench/context.mjs (organize_finder_100k), not asserted here: tests carry no timings.
  it('organizes 100,000 documents: all counted, the recent servers first, one page returned', () => {
    const servers = ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8'];
    const docs = Array.from({ length: 100_000 }, (_, i) =>
      doc(must(servers[i % 8], 'server'), `doc-${i}`, {
        last_modified: i % 17 === 0 ? undefined : new Date(1_700_000_000_000 + ((i * 7919) % 100_000) * 60_000).toISOString(),
        keywords: ['alpha', `k${i % 100}`],
        summary: `summary of document ${i}`,
      }),
    );
    const r = organizeFinder(docs, { keywords: ['alpha'], offset: 10, limit: 50 }, ['s3', 's1']);
    expect(r.total_count).toBe(100_000);
    expect(r.documents).toHaveLength(50);
    expect(r.documents[0]?.server).toBe('s3');
  });
});
