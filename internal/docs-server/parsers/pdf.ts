import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { shorten, type DraftPage } from '../domain/document.js';
import { ParseError, type DocParser } from './types.js';
import { checkPdfInflation } from './pdf-budget.js';
import { DEFAULT_DOC_LIMITS } from '../doc-limits.js';

interface Line {
  text: string;
  y: number;
  height: number;
}

// pdfjs is a large module: only servers that meet a PDF load it.
let pdfjs: Promise<typeof PdfJs> | undefined;
const loadPdfJs = (): Promise<typeof PdfJs> => (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

/**
 * PDF via pdfjs-dist (legacy build, runs in Node without a DOM). One DPE page per PDF page; text
 * runs are joined into lines, and lines into paragraphs where the vertical gap exceeds 1.6 line
 * heights. Each paragraph is a text element. Title/Keywords/Subject come from the PDF info dict.
 */
export const parsePdf: DocParser = async (bytes, stem, budget) => {
  // pdf.js inflates streams into buffers the worker's heap limit does not cover: count them first.
  await checkPdfInflation(bytes, budget?.maxUnpackedBytes ?? DEFAULT_DOC_LIMITS.maxUnpackedBytes);
  const { getDocument } = await loadPdfJs();
  // pdfjs takes ownership of (and detaches) the buffer it is given, so it gets a copy.
  const task = getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (e) {
    throw new ParseError(`not a readable PDF: ${(e as Error).message}`);
  }
  try {
    const info = ((await doc.getMetadata()).info ?? {}) as Record<string, unknown>;
    const pages: DraftPage[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const paragraphs = toParagraphs(toLines(content.items));
      pages.push({
        title: paragraphs[0] ? shorten(paragraphs[0], 60) : `Page ${n}`,
        elements: paragraphs.map((text) => ({
          category: 'text' as const,
          summary: shorten(text),
          content: { text },
          metadata: { pdf_page: n },
        })),
      });
      page.cleanup();
    }
    const firstText = pages.find((p) => p.elements.length > 0)?.elements[0]?.content.text;
    return {
      title: infoStr(info.Title) ?? stem,
      keywords: splitKeywords(infoStr(info.Keywords)),
      summary: infoStr(info.Subject) ?? (typeof firstText === 'string' ? shorten(firstText, 200) : undefined),
      pages: pages.length > 0 ? pages : [{ title: stem, elements: [] }],
    };
  } finally {
    await doc.destroy();
  }
};

function toLines(items: readonly unknown[]): Line[] {
  const lines: Line[] = [];
  let cur: Line | undefined;
  for (const raw of items) {
    if (typeof raw !== 'object' || raw === null || !('str' in raw)) continue;
    // pdf.js gives every text item its 2×3 transform matrix [a, b, c, d, e, f]: f is the baseline y, d the scale.
    const it = raw as { str: string; transform: [number, number, number, number, number, number]; height: number; hasEOL: boolean };
    const [, , , scaleY, , y] = it.transform;
    if (!cur || Math.abs(cur.y - y) > 0.5) {
      cur = { text: '', y, height: it.height || Math.abs(scaleY) || 10 };
      lines.push(cur);
    }
    cur.text += it.str;
    if (it.hasEOL) cur = undefined;
  }
  return lines.filter((l) => l.text.trim() !== '');
}

function toParagraphs(lines: readonly Line[]): string[] {
  const out: string[] = [];
  let prev: Line | undefined;
  for (const l of lines) {
    const gap = prev ? Math.abs(prev.y - l.y) : Infinity;
    if (!prev || gap > 1.6 * Math.max(prev.height, l.height)) out.push(l.text.trim());
    else out[out.length - 1] += ` ${l.text.trim()}`;
    prev = l;
  }
  return out;
}

function infoStr(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** PDF Keywords are free text: comma/semicolon lists when they use them, else space-separated words. */
function splitKeywords(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  return v
    .split(/[,;]/.test(v) ? /[,;]/ : /\s+/)
    .map((k) => k.trim())
    .filter((k) => k !== '');
}
