import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSamplePdf, writeSampleXlsx } from '../../../test/fixtures/docs/generate.js';
import { parsePdf } from './pdf.js';
import { parseXlsx } from './xlsx.js';

const BUDGET = { maxUnpackedBytes: 64 * 1024 * 1024 };

let dir = '';
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcpd-docs-bin-'));
  await writeSamplePdf(path.join(dir, 'report.pdf'));
  await writeSampleXlsx(path.join(dir, 'inventory.xlsx'));
  writeFileSync(path.join(dir, 'broken.pdf'), 'not a pdf');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (f: string): Uint8Array => new Uint8Array(readFileSync(path.join(dir, f)));

describe('parsePdf', () => {
  it('one page per PDF page, paragraphs as text elements, metadata from the info dict', async () => {
    const c = await parsePdf(bytes('report.pdf'), 'report');
    expect(c).toMatchObject({ title: 'Quarterly Report', keywords: ['finance', 'q3'], summary: 'Results of the third quarter.' });
    expect(c.pages).toHaveLength(2);
    expect(c.pages[0]?.elements.map((e) => e.content.text)).toEqual([
      'Revenue grew by ten percent. Costs stayed flat.',
      'Outlook is positive.',
    ]);
    expect(c.pages[0]?.elements[0]).toMatchObject({ category: 'text', metadata: { pdf_page: 1 } });
    expect(c.pages[1]).toMatchObject({ title: 'Appendix with tables.', elements: [{ content: { text: 'Appendix with tables.' } }] });
  });
  it('a file that is not a PDF is a ParseError', async () => {
    await expect(parsePdf(bytes('broken.pdf'), 'broken')).rejects.toThrow(/not a readable PDF/);
  });
});

describe('parseXlsx', () => {
  it('one page per sheet with one table; first row = headers', async () => {
    const c = await parseXlsx(bytes('inventory.xlsx'), 'inventory', BUDGET);
    expect(c).toMatchObject({ title: 'Inventory', keywords: ['stock', 'warehouse'] });
    expect(c.summary).toBe('Workbook with 2 sheet(s): Items, Sites');
    expect(c.pages.map((p) => p.title)).toEqual(['Items', 'Sites']);
    expect(c.pages[0]?.elements).toHaveLength(1);
    expect(c.pages[0]?.elements[0]).toMatchObject({
      category: 'table',
      content: {
        headers: ['sku', 'name', 'qty'],
        rows: [
          ['A1', 'Bolt', '120'],
          ['B2', 'Nut', '300'],
        ],
      },
      metadata: { sheet: 'Items' },
    });
  });
  it('a file that is not a workbook is a ParseError', async () => {
    await expect(parseXlsx(new TextEncoder().encode('nope'), 'x', BUDGET)).rejects.toThrow(/not a readable XLSX/);
  });
});
