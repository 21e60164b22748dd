import { shorten } from '../domain/document.js';
import { parseCsv } from './csv-rfc4180.js';
import { chunk, utf8, type DocParser } from './types.js';

export const CSV_ROWS_PER_PAGE = 50;

/** First record = headers; one table element per page of CSV_ROWS_PER_PAGE data rows. */
export const parseCsvDocument: DocParser = async (bytes, stem) => {
  const records = parseCsv(utf8(bytes));
  const headers = records[0] ?? [];
  const rows = records.slice(1);
  const pages = chunk(rows, CSV_ROWS_PER_PAGE).map((part, n) => {
    const first = n * CSV_ROWS_PER_PAGE + 1;
    return {
      title: part.length === 0 ? stem : `Rows ${first}–${first + part.length - 1}`,
      elements: [
        {
          category: 'table' as const,
          summary: `${part.length} row(s) × ${headers.length} column(s)`,
          content: { headers, rows: part },
          metadata: { first_row: first },
        },
      ],
    };
  });
  const named = headers.filter((h) => h.trim() !== '');
  return {
    title: stem,
    keywords: named.slice(0, 20),
    summary: shorten(`${rows.length} row(s) × ${headers.length} column(s): ${named.join(', ')}`, 200),
    pages,
  };
};
