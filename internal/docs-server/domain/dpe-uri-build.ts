import { LONE_SURROGATE_RE } from '../../shared/unicode.js';
import { HOST_RE, invalidUri } from '../../contract/finder/dpe-uri-rules.js';

/** encodeURIComponent, with our 4204 error instead of a URIError for text that is not well-formed Unicode. */
function encode(what: string, field: string, s: string): string {
  if (LONE_SURROGATE_RE.test(s)) {
    throw invalidUri(what, 'syntax', `the ${field} contains an unpaired UTF-16 surrogate`, 'pass well-formed Unicode text');
  }
  return encodeURIComponent(s);
}

export type DpeSubPath = { page: number } | { element: string };
export type DpeParamValue = string | number | readonly string[] | undefined;

/**
 * Builds a canonical `dpe://` URI. The doc-ref and element ID are percent-encoded (so "/" inside
 * them becomes %2F and round-trips through parseDpeUri); undefined params are left out.
 */
export function buildDpeUri(host: string, docRef?: string, subPath?: DpeSubPath | string, params?: Record<string, DpeParamValue>): string {
  const what = `dpe://${host}${docRef === undefined ? '' : `/${docRef}`}`;
  if (!HOST_RE.test(host)) {
    throw invalidUri(
      what,
      2,
      `host ${JSON.stringify(host)} is empty or has characters outside letters, digits and . _ ~ -`,
      'pass the MCP server name',
    );
  }
  let uri = `dpe://${host}`;
  if (docRef !== undefined) {
    if (docRef === '') throw invalidUri(what, 'syntax', 'the doc-ref is empty', 'pass a non-empty doc-ref');
    uri += `/${encode(what, 'doc-ref', docRef)}`;
  }
  if (subPath !== undefined) {
    if (docRef === undefined) throw invalidUri(what, 3, 'a sub-path needs a doc-ref', 'pass the doc-ref too');
    uri += `/${encodeSubPath(what, typeof subPath === 'string' ? subPathFromString(what, subPath) : subPath)}`;
  }
  const query = encodeParams(what, params);
  return query === '' ? uri : `${uri}?${query}`;
}

function subPathFromString(what: string, s: string): DpeSubPath {
  if (s.startsWith('pages/')) return { page: Number(s.slice(6)) };
  if (s.startsWith('elements/')) return { element: s.slice(9) };
  throw invalidUri(what, 3, `sub-path ${JSON.stringify(s)}`, 'use "pages/{N}" or "elements/{ID}"');
}

function encodeSubPath(what: string, sp: DpeSubPath): string {
  if ('page' in sp) {
    if (!Number.isSafeInteger(sp.page) || sp.page < 0) {
      throw invalidUri(what, 3, `page ${String(sp.page)} is not a non-negative integer`, 'pass 0, 1, 2, ...');
    }
    return `pages/${sp.page}`;
  }
  if (sp.element === '') throw invalidUri(what, 3, 'the element ID is empty', 'pass a non-empty element ID');
  return `elements/${encode(what, 'element ID', sp.element)}`;
}

function encodeParams(what: string, params: Record<string, DpeParamValue> | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    const field = `query parameter ${JSON.stringify(k)}`;
    const value = Array.isArray(v) ? v.map((x: string) => encode(what, field, x)).join(',') : encode(what, field, String(v));
    parts.push(`${encode(what, 'query key', k)}=${value}`);
  }
  return parts.join('&');
}
