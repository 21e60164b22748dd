import type { DpeDocument } from './document.js';
import { DpeError } from '../../contract/finder/dpe-error.js';
import { parseDpeUri } from '../../contract/finder/dpe-uri.js';
import type { DpeFormat } from '../../contract/finder/types.js';
import { level0, level1, level2, level3 } from './levels.js';
import * as r from './render-level.js';

export interface DpeDocumentSource {
  get(docRef: string): DpeDocument | undefined;
  all(): readonly DpeDocument[];
}

export interface DpeReadResult {
  uri: string;
  mimeType: string;
  text: string;
}

const MIME: Record<DpeFormat, string> = { json: 'application/json', markdown: 'text/markdown', text: 'text/plain' };

/** resources/read of a DPE server: parse, look up, shape the level, render. Throws DpeError 4201–4204. */
export function readDpeResource(host: string, source: DpeDocumentSource, uri: string): DpeReadResult {
  const p = parseDpeUri(uri);
  if (p.host !== host) {
    throw new DpeError(4201, `Document not found: this server serves host "${host}", not "${p.host}"; use dpe://${host}/...`, {
      host: p.host,
      served_host: host,
    });
  }
  const fmt = p.query.format;
  const out = (json: unknown, md: string, text: string): DpeReadResult => ({
    uri,
    mimeType: MIME[fmt],
    text: fmt === 'json' ? JSON.stringify(json) : fmt === 'markdown' ? md : text,
  });
  if (p.level === 0) {
    const l = level0(host, source.all(), p.query);
    return out(l, r.level0Markdown(l), r.level0Text(l));
  }
  const docRef = p.docRef as string;
  const doc = source.get(docRef);
  if (!doc) {
    throw new DpeError(4201, `Document not found: no document "${docRef}" on "${host}"; read dpe://${host} to list the documents`, {
      doc_ref: docRef,
      host,
    });
  }
  if (p.level === 1) {
    const l = level1(host, doc, p.query);
    return out(l, r.level1Markdown(l), r.level1Text(l));
  }
  if (p.level === 2) {
    const l = level2(host, doc, p.pageIndex as number, p.query);
    return out(l, r.level2Markdown(l), r.level2Text(l));
  }
  const l = level3(host, doc, p.elementId as string);
  return out(l, r.level3Markdown(l), r.level3Text(l));
}
