import type { DPEDocumentSummary } from '../../internal/contract/finder/types.js';

/** A document summary for tests: `ref` on `server`, a one-page PDF unless `extra` says otherwise. */
export function doc(server: string, ref: string, extra: Partial<DPEDocumentSummary> = {}): DPEDocumentSummary {
  return {
    doc_ref: ref,
    uri: `dpe://${server}/${ref}`,
    file_uri: `file:///${ref}`,
    file_type: 'pdf',
    title: ref,
    page_count: 1,
    server,
    ...extra,
  };
}
