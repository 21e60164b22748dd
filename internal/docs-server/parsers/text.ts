import { shorten, type DraftPage } from '../domain/document.js';
import { utf8, type DocParser } from './types.js';

/** A page holds whole paragraphs up to about this many characters. */
export const TEXT_PAGE_CHARS = 4000;

/**
 * Plain text: paragraphs (separated by blank lines) become text elements; pages are filled with
 * whole paragraphs up to TEXT_PAGE_CHARS. The title is the first line when it is short
 * (≤ 100 characters), else the file name.
 */
export const parseText: DocParser = async (bytes, stem) => {
  const text = utf8(bytes).replace(/\r\n?/g, '\n');
  const paragraphs = text
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const firstLine = paragraphs[0]?.split('\n', 1)[0]?.trim() ?? '';
  const title = firstLine !== '' && firstLine.length <= 100 ? firstLine : stem;
  return {
    title,
    summary: paragraphs.length > 0 ? shorten(paragraphs.slice(0, 2).join(' '), 200) : undefined,
    pages: paginate(paragraphs, title),
  };
};

function paginate(paragraphs: readonly string[], title: string): DraftPage[] {
  const pages: DraftPage[] = [];
  let size = 0;
  let page: DraftPage | undefined;
  for (const p of paragraphs) {
    if (page === undefined || (size + p.length > TEXT_PAGE_CHARS && page.elements.length > 0)) {
      page = { title: shorten(p, 60), elements: [] };
      pages.push(page);
      size = 0;
    }
    page.elements.push({ category: 'text', summary: shorten(p), content: { text: p } });
    size += p.length;
  }
  return pages.length > 0 ? pages : [{ title, elements: [] }];
}
