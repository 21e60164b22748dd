import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEXT_FIXTURES } from '../../../test/fixtures/docs/generate.js';
import { CSV_ROWS_PER_PAGE, parseCsvDocument } from './csv.js';
import { parseCsv } from './csv-rfc4180.js';
import { ParseError } from './types.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parseCsv (RFC 4180)', () => {
  it('reads quoted fields with commas, doubled quotes, CRLF and embedded newlines', () => {
    expect(parseCsv('a,b\r\n"x, y","say ""hi"""\r\n"multi\nline",z\r\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
      ['multi\nline', 'z'],
    ]);
  });
  it('a final line break does not add a record; a missing one is fine', () => {
    expect(parseCsv('a,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(parseCsv('a,b\n1,2\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });
  it('keeps empty fields, including a trailing one', () => {
    expect(parseCsv(',a,\n,,')).toEqual([
      ['', 'a', ''],
      ['', '', ''],
    ]);
    expect(parseCsv('a,')).toEqual([['a', '']]);
    expect(parseCsv('""')).toEqual([['']]);
  });
  it('rejects malformed quoting with line and column', () => {
    expect(() => parseCsv('a,b\n"open,x\n')).toThrow(/line 2, column \d+: unterminated quoted field/);
    expect(() => parseCsv('a,b\n1,x"y\n')).toThrow(ParseError);
    expect(() => parseCsv('a,b\n1,x"y\n')).toThrow(/line 2, column 4: quote inside an unquoted field; wrap/);
    expect(() => parseCsv('"a"b,c')).toThrow(/line 1, column 4: text after a closing quote/);
  });
  it('empty input has no records', () => {
    expect(parseCsv('')).toEqual([]);
  });
});

describe('parseCsvDocument', () => {
  it('maps the fixture to one table page with headers and keywords', async () => {
    const c = await parseCsvDocument(new Uint8Array(readFileSync(path.join(TEXT_FIXTURES, 'people.csv'))), 'people');
    expect(c.title).toBe('people');
    expect(c.keywords).toEqual(['name', 'role', 'notes']);
    expect(c.summary).toMatch(/^3 row\(s\) × 3 column\(s\)/);
    expect(c.pages).toHaveLength(1);
    expect(c.pages[0]?.elements[0]).toMatchObject({
      category: 'table',
      content: {
        headers: ['name', 'role', 'notes'],
        rows: [
          ['Ada', 'engineer', 'likes "quotes", commas'],
          ['Grace', 'admiral', 'multi\nline'],
          ['Linus', 'maintainer', ''],
        ],
      },
    });
  });
  it('pages every CSV_ROWS_PER_PAGE rows', async () => {
    const rows = Array.from({ length: CSV_ROWS_PER_PAGE * 2 + 1 }, (_, i) => `r${i},${i}`);
    const c = await parseCsvDocument(enc(['k,v', ...rows].join('\n')), 'big');
    expect(c.pages.map((p) => p.title)).toEqual([
      `Rows 1–${CSV_ROWS_PER_PAGE}`,
      `Rows ${CSV_ROWS_PER_PAGE + 1}–${CSV_ROWS_PER_PAGE * 2}`,
      `Rows ${CSV_ROWS_PER_PAGE * 2 + 1}–${CSV_ROWS_PER_PAGE * 2 + 1}`,
    ]);
    expect((c.pages[2]?.elements[0]?.content.rows as string[][])[0]).toEqual([`r${CSV_ROWS_PER_PAGE * 2}`, String(CSV_ROWS_PER_PAGE * 2)]);
  });
  it('a header-only CSV has one empty-table page; a BOM is not part of the first header', async () => {
    const c = await parseCsvDocument(enc('\uFEFFa,b\n'), 'h');
    expect(c.pages).toHaveLength(1);
    expect(c.pages[0]?.elements[0]?.content).toEqual({ headers: ['a', 'b'], rows: [] });
  });
});
