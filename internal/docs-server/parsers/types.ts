import type { DraftPage } from '../domain/document.js';

/** What a format parser extracts from one file; IDs, URIs and file metadata are added by the index. */
export interface ParsedContent {
  title: string;
  keywords?: string[];
  summary?: string;
  pages: DraftPage[];
}

/** What a parser may spend beyond the file's own bytes. */
export interface ParseBudget {
  /** Bytes a zip-based file (XLSX) or a PDF's streams may actually inflate to (--max-unpacked-bytes). */
  maxUnpackedBytes: number;
}

/** `stem` is the file name without extension, the fallback title; without a budget the defaults apply. */
export type DocParser = (bytes: Uint8Array, stem: string, budget?: ParseBudget) => Promise<ParsedContent>;

/** Thrown for files that cannot be read as their format; the message says where and why. */
export class ParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParseError';
  }
}

export function utf8(bytes: Uint8Array): string {
  // A UTF-8 BOM is not content.
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

/** Splits `items` into chunks of at most `size` (at least one chunk, possibly empty). */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (items.length === 0) return [[]];
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
