import type ExcelJSModule from 'exceljs';
import type { DraftPage } from '../domain/document.js';
import { shorten } from '../domain/document.js';
import { ParseError, type DocParser } from './types.js';
import { checkInflatedSize } from './zip-budget.js';
import { DEFAULT_DOC_LIMITS } from '../doc-limits.js';

// exceljs takes about half a second to load: only servers that meet a workbook pay for it.
let excel: Promise<typeof ExcelJSModule> | undefined;
const loadExcel = (): Promise<typeof ExcelJSModule> => (excel ??= import('exceljs').then((m) => m.default));

/**
 * XLSX via exceljs: one page per worksheet with one table element; the sheet's first row is the
 * header row. Cells are their displayed text. Title/keywords/subject come from the workbook properties.
 */
export const parseXlsx: DocParser = async (bytes, stem, budget) => {
  // Counted before exceljs unpacks it: exceljs (JSZip) inflates whatever the entries hold, into Buffers.
  await checkInflatedSize(bytes, budget?.maxUnpackedBytes ?? DEFAULT_DOC_LIMITS.maxUnpackedBytes, 'XLSX workbook');
  const ExcelJS = await loadExcel();
  const wb = new ExcelJS.Workbook();
  try {
    await wb.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  } catch (e) {
    throw new ParseError(`not a readable XLSX workbook: ${(e as Error).message}`);
  }
  const pages: DraftPage[] = wb.worksheets.map((ws) => {
    const grid: string[][] = [];
    ws.eachRow({ includeEmpty: true }, (row, rowNumber) => {
      const cells: string[] = [];
      for (let c = 1; c <= ws.columnCount; c++) cells.push(row.getCell(c).text ?? '');
      grid[rowNumber - 1] = cells;
    });
    const dense = Array.from({ length: grid.length }, (_, i) => grid[i] ?? []);
    const headers = dense[0] ?? [];
    const rows = dense.slice(1);
    return {
      title: ws.name,
      elements: [
        {
          category: 'table' as const,
          summary: `${ws.name}: ${rows.length} row(s) × ${headers.length} column(s)`,
          content: { headers, rows },
          metadata: { sheet: ws.name },
        },
      ],
    };
  });
  const names = wb.worksheets.map((w) => w.name);
  return {
    title: wb.title?.trim() || stem,
    keywords: wb.keywords
      ? wb.keywords
          .split(/[,;]/)
          .map((k) => k.trim())
          .filter((k) => k !== '')
      : undefined,
    summary: wb.subject?.trim() || wb.description?.trim() || shorten(`Workbook with ${names.length} sheet(s): ${names.join(', ')}`, 200),
    pages: pages.length > 0 ? pages : [{ title: stem, elements: [] }],
  };
};
