import { parseDpeQuery, type DpeQuery } from './dpe-query.js';
import { HOST_RE, invalidUri, parseCanonicalInt, tryDecode } from './dpe-uri-rules.js';

type DpeLevel = 0 | 1 | 2 | 3;

/**
 * A validated `dpe://` URI. `docRef` and `elementId` are percent-decoded; `subPath` is the
 * decoded form ("pages/3", "elements/a/b" when the ID held an encoded slash).
 */
export interface ParsedDpeUri {
  scheme: 'dpe';
  host: string;
  docRef?: string;
  subPath?: string;
  pageIndex?: number;
  elementId?: string;
  level: DpeLevel;
  /** Every query pair as given (decoded), unknown keys included. */
  queryParams: Record<string, string>;
  /** Known parameters, validated, with the defaults of spec/README.md applied. */
  query: DpeQuery;
}

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
// Whitespace and controls are never part of a URI; they must be percent-encoded.
// eslint-disable-next-line no-control-regex -- matching control characters is this check's purpose
const FORBIDDEN_RE = /[\s\u0000-\u001f\u007f]/;

/** Parses and validates a `dpe://` URI; throws DpeError 4204 naming the failed rule. */
export function parseDpeUri(raw: string): ParsedDpeUri {
  if (typeof raw !== 'string' || raw === '') {
    throw invalidUri(String(raw), 1, 'the URI is empty', 'pass a URI like dpe://server/doc-ref');
  }
  const m = SCHEME_RE.exec(raw);
  if (!m) throw invalidUri(raw, 1, 'no "scheme://" prefix', 'start the URI with dpe://');
  const [, scheme = ''] = m;
  if (scheme.toLowerCase() !== 'dpe') {
    throw invalidUri(raw, 1, `scheme is "${scheme}"`, 'only dpe:// URIs address Finder documents', { scheme });
  }
  if (FORBIDDEN_RE.test(raw)) {
    throw invalidUri(raw, 'syntax', 'the URI contains whitespace or control characters', 'percent-encode them (a space is %20)');
  }
  const rest = raw.slice(m[0].length);
  if (rest.includes('#')) throw invalidUri(raw, 'syntax', 'fragments (#...) are not part of dpe:// URIs', 'remove the "#..." part');
  const q = rest.indexOf('?');
  const pathPart = q < 0 ? rest : rest.slice(0, q);
  const queryPart = q < 0 ? '' : rest.slice(q + 1);
  const slash = pathPart.indexOf('/');
  const host = slash < 0 ? pathPart : pathPart.slice(0, slash);
  checkHost(raw, host);
  const path = parsePath(raw, slash < 0 ? '' : pathPart.slice(slash));
  const { params, query } = parseDpeQuery(raw, queryPart);
  return { scheme: 'dpe', host, ...path, queryParams: params, query };
}

export function isValidDpeUri(raw: string): boolean {
  try {
    parseDpeUri(raw);
    return true;
  } catch {
    return false;
  }
}

function checkHost(raw: string, host: string): void {
  if (host === '') throw invalidUri(raw, 2, 'the host is empty', 'put the MCP server name after dpe://, e.g. dpe://docs/...');
  if (!HOST_RE.test(host)) {
    throw invalidUri(
      raw,
      2,
      `host ${JSON.stringify(host)} has characters outside letters, digits and . _ ~ -`,
      'use the MCP server name as the host; no port, user or escapes',
      { host },
    );
  }
}

type PathParts = Pick<ParsedDpeUri, 'docRef' | 'subPath' | 'pageIndex' | 'elementId' | 'level'>;

function parsePath(raw: string, path: string): PathParts {
  if (path === '' || path === '/') return { level: 0 };
  // One trailing slash is tolerated and dropped; empty segments anywhere else are an error.
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  const segs = trimmed.slice(1).split('/');
  if (segs.some((s) => s === '')) {
    throw invalidUri(raw, 3, 'the path has an empty segment ("//")', 'remove the doubled slash');
  }
  // split() returns at least one element, so the doc-ref segment always exists.
  const [first = ''] = segs;
  const docRef = tryDecode(first);
  if (docRef === undefined) {
    throw invalidUri(raw, 'syntax', `malformed percent-escape in doc-ref ${JSON.stringify(first)}`, 'escape "%" as %25');
  }
  if (segs.length === 1) return { level: 1, docRef };
  return { docRef, ...parseSubPath(raw, segs.slice(1)) };
}

function parseSubPath(raw: string, segs: string[]): Omit<PathParts, 'docRef'> {
  // Callers pass the segments after the doc-ref: one at least, and none empty.
  const [kind, arg = ''] = segs;
  if (kind === 'pages' && segs.length === 2) {
    const n = parseCanonicalInt(arg);
    if (n === undefined) {
      throw invalidUri(
        raw,
        3,
        `page number ${JSON.stringify(arg)} is not a canonical non-negative integer`,
        'use digits only, no sign or leading zeros (pages/0, pages/12)',
        { page: arg },
      );
    }
    return { level: 2, subPath: `pages/${n}`, pageIndex: n };
  }
  if (kind === 'elements' && segs.length === 2) {
    const id = tryDecode(arg);
    if (id === undefined) throw invalidUri(raw, 3, `malformed percent-escape in element ID ${JSON.stringify(arg)}`, 'escape "%" as %25');
    return { level: 3, subPath: `elements/${id}`, elementId: id };
  }
  if (kind === 'elements' && segs.length > 2) {
    throw invalidUri(raw, 3, 'the element ID contains "/"', 'percent-encode "/" inside an element ID as %2F');
  }
  if ((kind === 'pages' || kind === 'elements') && segs.length === 1) {
    throw invalidUri(
      raw,
      3,
      `"${kind}" has no ${kind === 'pages' ? 'page number' : 'element ID'}`,
      `append /{${kind === 'pages' ? 'N' : 'ID'}}`,
    );
  }
  throw invalidUri(
    raw,
    3,
    `unexpected sub-path "${segs.join('/')}"`,
    'use /pages/{N} or /elements/{ID} after the doc-ref; percent-encode "/" inside a doc-ref as %2F',
  );
}
