import { McpdError } from '../../../shared/errors.js';
import { isValidDpeUri } from '../../../contract/finder/dpe-uri.js';
import type { DPEDocumentSummary } from '../../../contract/finder/types.js';

/**
 * Builds the DPEDocumentSummary the Computer keeps for a document from its Level-1 read (the JSON
 * text or the parsed object) plus the server name. Extra Level-1 fields (pages, page_offset ...)
 * are dropped; a missing or mistyped required field is an error naming the field and the server.
 */
export function summaryFromLevel1(level1Json: unknown, server: string): DPEDocumentSummary {
  const obj = asObject(level1Json, server);
  const fail = (field: string, expected: string): never => {
    throw new McpdError(
      'DOWNSTREAM_ERROR',
      `server "${server}" returned a Level-1 document whose "${field}" is ${describe(obj[field])}, expected ${expected}; fix the server's dpe:// resources/read output`,
      { data: { server, field } },
    );
  };
  const str = (f: string): string => (typeof obj[f] === 'string' && obj[f] !== '' ? (obj[f] as string) : fail(f, 'a non-empty string'));
  const out: DPEDocumentSummary = {
    doc_ref: str('doc_ref'),
    uri: str('uri'),
    file_uri: str('file_uri'),
    file_type: str('file_type'),
    title: typeof obj.title === 'string' ? obj.title : fail('title', 'a string'),
    page_count:
      Number.isSafeInteger(obj.page_count) && (obj.page_count as number) >= 0
        ? (obj.page_count as number)
        : fail('page_count', 'a non-negative integer'),
    server,
  };
  if (!isValidDpeUri(out.uri)) fail('uri', 'a valid dpe:// URI');
  if (obj.keywords !== undefined) {
    if (!Array.isArray(obj.keywords) || !obj.keywords.every((k) => typeof k === 'string')) fail('keywords', 'an array of strings');
    out.keywords = [...(obj.keywords as string[])];
  }
  if (obj.summary !== undefined) out.summary = typeof obj.summary === 'string' ? obj.summary : fail('summary', 'a string');
  if (obj.last_modified !== undefined) {
    out.last_modified = typeof obj.last_modified === 'string' ? obj.last_modified : fail('last_modified', 'an ISO 8601 string');
  }
  return out;
}

function asObject(v: unknown, server: string): Record<string, unknown> {
  let value = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v) as unknown;
    } catch (e) {
      throw new McpdError(
        'DOWNSTREAM_ERROR',
        `server "${server}" returned a Level-1 document that is not JSON (${(e as Error).message}); it must return application/json text`,
        { data: { server } },
      );
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpdError(
      'DOWNSTREAM_ERROR',
      `server "${server}" returned a Level-1 document that is ${describe(value)}, expected a JSON object`,
      { data: { server } },
    );
  }
  return value as Record<string, unknown>;
}

function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `${typeof v} ${JSON.stringify(v)?.slice(0, 40) ?? ''}`.trim();
}
