import { createHash } from 'node:crypto';
import type { JsonObject } from '../../shared/json.js';
import type { ElementCategory } from '../../contract/finder/types.js';

/**
 * A document as a DPE server holds it: pages of typed elements. Content shapes by category:
 * heading {text, level}; text {text}; list {ordered, items}; code {code, language?};
 * table {headers, rows}; image {url, alt, title?}; link {url, text}; formula {expression};
 * chart {title, data_summary}; separator {}.
 */
export interface DpeElement {
  element_id: string;
  category: ElementCategory;
  summary?: string;
  content: JsonObject;
  metadata?: JsonObject;
}

export interface DpePage {
  title: string;
  elements: DpeElement[];
}

export interface DpeDocument {
  doc_ref: string;
  file_uri: string;
  file_type: string;
  title: string;
  keywords?: string[];
  summary?: string;
  last_modified?: string;
  pages: DpePage[];
}

export type DraftElement = Omit<DpeElement, 'element_id'>;
export interface DraftPage {
  title: string;
  elements: DraftElement[];
}

/**
 * Element IDs derive from category and content, not position, so an ID an agent holds keeps
 * pointing at the same element when other parts of the document are edited. Identical elements
 * get -2, -3 ... in document order.
 */
export function assignElementIds(pages: readonly DraftPage[]): DpePage[] {
  const seen = new Map<string, number>();
  return pages.map((p) => ({
    title: p.title,
    elements: p.elements.map((e) => {
      const base = `${e.category}-${createHash('sha1').update(JSON.stringify(e.content)).digest('hex').slice(0, 10)}`;
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { element_id: n === 1 ? base : `${base}-${n}`, ...e };
    }),
  }));
}

/** A one-line summary: whitespace collapsed, cut at `max` characters with an ellipsis. */
export function shorten(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
