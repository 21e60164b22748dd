import type { JsonObject } from '../../shared/json.js';

/** Element categories of the DPE protocol draft (spec/README.md); `categories=` is validated against these. */
const ELEMENT_CATEGORIES = [
  'text',
  'heading',
  'list',
  'code',
  'table',
  'pivot_table',
  'chart',
  'diagram',
  'image',
  'formula',
  'link',
  'annotation',
  'header',
  'footer',
  'separator',
  'audio',
  'video',
  'form',
  'widget',
] as const;
export type ElementCategory = (typeof ELEMENT_CATEGORIES)[number];

export function isElementCategory(s: string): s is ElementCategory {
  return (ELEMENT_CATEGORIES as readonly string[]).includes(s);
}

export type DpeFormat = 'json' | 'markdown' | 'text';
export type DpeDepth = 'metadata' | 'pages';

/** Query defaults from spec/README.md. */
export const DPE_DEFAULTS = { format: 'json', depth: 'metadata', offset: 0, limit: 20 } as const;
export const DPE_LIMIT_MAX = 100;

export interface DPEDocumentSummary {
  doc_ref: string;
  uri: string;
  file_uri: string;
  file_type: string;
  title: string;
  page_count: number;
  keywords?: string[];
  summary?: string;
  server: string;
  last_modified?: string;
}

export interface DPEPageSummary {
  page_index: number;
  title: string;
  element_count: number;
  uri: string;
  doc_ref?: string;
}

export interface DPEElementDetail {
  element_id: string;
  category: string;
  summary?: string;
  content: JsonObject;
  doc_ref?: string;
  page_index?: number;
  uri?: string;
  metadata?: JsonObject;
}

/** The request half of GetFinderReq that the organizer needs. */
export interface FinderQuery {
  keywords?: string[];
  file_type?: string;
  offset?: number;
  limit?: number;
}

export interface FinderResult {
  documents: DPEDocumentSummary[];
  total_count: number;
}
