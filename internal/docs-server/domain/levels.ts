import type { JsonObject } from '../../shared/json.js';
import type { DpeDocument, DpeElement } from './document.js';
import { DpeError } from '../../contract/finder/dpe-error.js';
import { buildDpeUri } from './dpe-uri-build.js';
import type { DpeQuery } from '../../contract/finder/dpe-query.js';
import type { DPEDocumentSummary, DPEElementDetail, DPEPageSummary, ElementCategory } from '../../contract/finder/types.js';

/** Level shapes of spec/README.md, built from the server's document model. */

export interface Level0 {
  documents: DPEDocumentSummary[];
  total_count: number;
}

export type Level1 = Omit<DPEDocumentSummary, 'server'> & {
  pages?: DPEPageSummary[];
  page_offset?: number;
  page_limit?: number;
  page_total?: number;
};

export interface Level2 {
  page_index: number;
  title: string;
  doc_ref: string;
  uri: string;
  element_count: number;
  elements: { element_id: string; category: string; summary?: string; content: JsonObject }[];
}

function documentMetadata(host: string, doc: DpeDocument): Omit<DPEDocumentSummary, 'server'> {
  const meta: Omit<DPEDocumentSummary, 'server'> = {
    doc_ref: doc.doc_ref,
    uri: buildDpeUri(host, doc.doc_ref),
    file_uri: doc.file_uri,
    file_type: doc.file_type,
    title: doc.title,
    page_count: doc.pages.length,
  };
  if (doc.keywords !== undefined) meta.keywords = doc.keywords;
  if (doc.summary !== undefined) meta.summary = doc.summary;
  if (doc.last_modified !== undefined) meta.last_modified = doc.last_modified;
  return meta;
}

/** Level 0: the server's documents by doc_ref, paged by offset/limit; `server` is the host. */
export function level0(host: string, docs: readonly DpeDocument[], q: DpeQuery): Level0 {
  const sorted = [...docs].sort((a, b) => (a.doc_ref < b.doc_ref ? -1 : a.doc_ref > b.doc_ref ? 1 : 0));
  const page = sorted.slice(q.offset, q.offset + q.limit);
  return { documents: page.map((d) => ({ ...documentMetadata(host, d), server: host })), total_count: sorted.length };
}

export function level1(host: string, doc: DpeDocument, q: DpeQuery): Level1 {
  const meta: Level1 = documentMetadata(host, doc);
  if (q.depth !== 'pages') return meta;
  const pages = doc.pages.slice(q.offset, q.offset + q.limit).map((p, i): DPEPageSummary => ({
    page_index: q.offset + i,
    title: p.title,
    element_count: filterElements(p.elements, q.categories).length,
    uri: buildDpeUri(host, doc.doc_ref, { page: q.offset + i }),
    doc_ref: doc.doc_ref,
  }));
  return { ...meta, pages, page_offset: q.offset, page_limit: q.limit, page_total: doc.pages.length };
}

export function level2(host: string, doc: DpeDocument, pageIndex: number, q: DpeQuery): Level2 {
  const page = doc.pages[pageIndex];
  if (page === undefined) {
    throw new DpeError(
      4202,
      `Page out of range: page ${pageIndex} of document "${doc.doc_ref}", which has ${doc.pages.length} page(s) (0..${doc.pages.length - 1}); read the document with depth=pages to see its pages`,
      {
        doc_ref: doc.doc_ref,
        page_index: pageIndex,
        page_count: doc.pages.length,
      },
    );
  }
  const elements = filterElements(page.elements, q.categories).map((e) => {
    const out: Level2['elements'][number] = { element_id: e.element_id, category: e.category, content: e.content };
    if (e.summary !== undefined) out.summary = e.summary;
    return out;
  });
  return {
    page_index: pageIndex,
    title: page.title,
    doc_ref: doc.doc_ref,
    uri: buildDpeUri(host, doc.doc_ref, { page: pageIndex }),
    element_count: elements.length,
    elements,
  };
}

export function level3(host: string, doc: DpeDocument, elementId: string): DPEElementDetail {
  for (const [i, page] of doc.pages.entries()) {
    const e = page.elements.find((x) => x.element_id === elementId);
    if (e) return elementDetail(host, doc, i, e);
  }
  throw new DpeError(
    4203,
    `Element not found: "${elementId}" in document "${doc.doc_ref}"; read a page (…/pages/{N}) to see its element IDs`,
    {
      doc_ref: doc.doc_ref,
      element_id: elementId,
    },
  );
}

function elementDetail(host: string, doc: DpeDocument, pageIndex: number, e: DpeElement): DPEElementDetail {
  const d: DPEElementDetail = {
    element_id: e.element_id,
    category: e.category,
    content: e.content,
    doc_ref: doc.doc_ref,
    page_index: pageIndex,
    uri: buildDpeUri(host, doc.doc_ref, { element: e.element_id }),
  };
  if (e.summary !== undefined) d.summary = e.summary;
  if (e.metadata !== undefined) d.metadata = e.metadata;
  return d;
}

function filterElements(elements: readonly DpeElement[], categories: readonly ElementCategory[] | undefined): DpeElement[] {
  if (categories === undefined) return [...elements];
  return elements.filter((e) => categories.includes(e.category));
}
