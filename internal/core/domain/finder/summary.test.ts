import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { FinderChangeDetector } from './change-detect.js';
import { summaryFromLevel1 } from './summary.js';

const level1 = {
  doc_ref: 'r.md',
  uri: 'dpe://docs/r.md',
  file_uri: 'file:///r.md',
  file_type: 'md',
  title: 'R',
  page_count: 3,
  keywords: ['a'],
  summary: 's',
  last_modified: '2024-01-01T00:00:00.000Z',
  pages: [],
  page_total: 3,
};

describe('summaryFromLevel1', () => {
  it('keeps the summary fields, adds server, drops the rest (object or JSON text)', () => {
    const want = {
      doc_ref: 'r.md',
      uri: 'dpe://docs/r.md',
      file_uri: 'file:///r.md',
      file_type: 'md',
      title: 'R',
      page_count: 3,
      keywords: ['a'],
      summary: 's',
      last_modified: '2024-01-01T00:00:00.000Z',
      server: 'srv',
    };
    expect(summaryFromLevel1(level1, 'srv')).toEqual(want);
    expect(summaryFromLevel1(JSON.stringify(level1), 'srv')).toEqual(want);
  });
  it('optional fields may be absent', () => {
    const { keywords: _k, summary: _s, last_modified: _l, ...min } = level1;
    expect(summaryFromLevel1(min, 'x')).toEqual({
      doc_ref: 'r.md',
      uri: 'dpe://docs/r.md',
      file_uri: 'file:///r.md',
      file_type: 'md',
      title: 'R',
      page_count: 3,
      server: 'x',
    });
  });
  it.each([
    ['doc_ref', undefined, /"doc_ref" is missing, expected a non-empty string/],
    ['uri', 'http://x', /"uri" is string "http:\/\/x".*expected a valid dpe:\/\/ URI/],
    ['title', 5, /"title" is number 5, expected a string/],
    ['page_count', -1, /"page_count" .* expected a non-negative integer/],
    ['page_count', 1.5, /non-negative integer/],
    ['keywords', ['a', 2], /"keywords" .* expected an array of strings/],
    ['summary', null, /"summary" is null, expected a string/],
    ['last_modified', 7, /"last_modified" .* ISO 8601/],
  ])('rejects a bad %s (%j)', (field, value, msg) => {
    const bad: Record<string, unknown> = { ...level1, [field]: value };
    if (value === undefined) delete bad[field];
    expect(() => summaryFromLevel1(bad, 'srv')).toThrow(McpdError);
    expect(() => summaryFromLevel1(bad, 'srv')).toThrow(msg);
    expect(() => summaryFromLevel1(bad, 'srv')).toThrow(/server "srv"/);
  });
  it('rejects non-objects and non-JSON text', () => {
    expect(() => summaryFromLevel1('{oops', 's')).toThrow(/not JSON/);
    expect(() => summaryFromLevel1([1], 's')).toThrow(/an array, expected a JSON object/);
    expect(() => summaryFromLevel1(null, 's')).toThrow(/null, expected a JSON object/);
  });
});

describe('FinderChangeDetector', () => {
  it('same dpe:// set → no update; added or removed URI → update; other schemes ignored', () => {
    const d = new FinderChangeDetector();
    expect(d.replace('a', ['dpe://a/x', 'window://a/w'])).toBe(true);
    expect(d.replace('a', ['dpe://a/x'])).toBe(false);
    expect(d.replace('a', ['dpe://a/x', 'window://a/other', 'file:///z'])).toBe(false);
    expect(d.replace('a', ['dpe://a/x', 'dpe://a/y'])).toBe(true);
    expect(d.replace('a', ['dpe://a/y'])).toBe(true);
    expect(d.replace('a', ['dpe://a/z'])).toBe(true); // same size, different member
    expect([...d.uris('a')]).toEqual(['dpe://a/z']);
  });
  it('servers are tracked separately; a first list without dpe:// URIs is not a change', () => {
    const d = new FinderChangeDetector();
    expect(d.replace('b', ['window://b/1'])).toBe(false);
    d.replace('a', ['dpe://a/x']);
    expect(d.replace('b', ['dpe://a/x'])).toBe(true);
    expect(d.removeServer('b')).toBe(true);
    expect(d.removeServer('b')).toBe(false);
    expect(d.uris('a').size).toBe(1);
  });
  it('resource updated: only dpe:// URIs (scheme case-insensitive)', () => {
    const d = new FinderChangeDetector();
    expect(d.onUpdated('dpe://a/x/pages/1')).toBe(true);
    expect(d.onUpdated('DPE://a/x')).toBe(true);
    expect(d.onUpdated('window://a/x')).toBe(false);
  });
});
