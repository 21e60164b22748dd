import { parseCsvDocument } from './csv.js';
import { parseJsonDocument } from './json.js';
import { parseMarkdown } from './markdown.js';
import { parsePdf } from './pdf.js';
import { parseText } from './text.js';
import type { DocParser } from './types.js';
import { parseXlsx } from './xlsx.js';

export interface FormatEntry {
  /** DPEDocumentSummary.file_type */
  fileType: string;
  parse: DocParser;
}

/** Supported extensions (lower case, with dot) → format. Other files are not documents. */
const FORMATS: ReadonlyMap<string, FormatEntry> = new Map([
  ['.md', { fileType: 'md', parse: parseMarkdown }],
  ['.markdown', { fileType: 'md', parse: parseMarkdown }],
  ['.txt', { fileType: 'txt', parse: parseText }],
  ['.csv', { fileType: 'csv', parse: parseCsvDocument }],
  ['.json', { fileType: 'json', parse: parseJsonDocument }],
  ['.pdf', { fileType: 'pdf', parse: parsePdf }],
  ['.xlsx', { fileType: 'xlsx', parse: parseXlsx }],
]);

export function formatFor(fileName: string): FormatEntry | undefined {
  const dot = fileName.lastIndexOf('.');
  return dot <= 0 ? undefined : FORMATS.get(fileName.slice(dot).toLowerCase());
}
