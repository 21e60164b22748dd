/**
 * `window://` URI grammar (spec desktop-window-resources.md, "Window URI 规范").
 *
 * Every case the spec leaves open is decided here and listed in docs/desktop.md; the comments
 * below name the decision, the document gives the reasons.
 */
import { McpdError } from '../../shared/errors.js';
import { LONE_SURROGATE_RE } from '../../shared/unicode.js';

/** A parsed window URI. Absent query keys stay absent so that `parse(build(v))` equals `v`. */
export interface WindowUri {
  /** MCP identifier, lower-cased (hosts are case-insensitive, RFC 3986 §3.2.2). */
  host: string;
  /** Percent-decoded, non-empty segments; `c%2Fd` is the single segment `c/d`. */
  path: readonly string[];
  /** Integer 0–100 from `?priority=`; absent means the default 0. */
  priority?: number;
  /** From `?fullscreen=`; absent means not fullscreen. */
  fullscreen?: boolean;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 100;

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);
const HOST_RE = /^[A-Za-z0-9\-._~]+$/;
const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const BAD_ESCAPE_RE = /%(?![0-9A-Fa-f]{2})/;
// eslint-disable-next-line no-control-regex
const SPACE_OR_CONTROL_RE = /[\u0000-\u0020\u007F-\u009F\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]/;

const PRINTABLE_ASCII_RE = /^[\x21-\x7E]*$/;

class UriProblem extends Error {}

function fail(message: string): never {
  throw new UriProblem(message);
}

/** Parses a `window://` URI; never throws. */
export function parseWindowUri(uri: string): ParseResult<WindowUri> {
  if (typeof uri !== 'string') {
    return { ok: false, error: `window URI must be a string, got ${uri === null ? 'null' : typeof uri}` };
  }
  try {
    return { ok: true, value: parseOrThrow(uri) };
  } catch (e) {
    if (e instanceof UriProblem) return { ok: false, error: `invalid window URI ${JSON.stringify(uri)}: ${e.message}` };
    throw e;
  }
}

/** True when `uri` parses as a window URI. */
export function isWindowUri(uri: string): boolean {
  return parseWindowUri(uri).ok;
}

function parseOrThrow(uri: string): WindowUri {
  checkCharacters(uri);
  const scheme = SCHEME_RE.exec(uri);
  if (!scheme) fail("missing scheme; a window URI looks like 'window://host/segment?priority=50'");
  const [whole, name = ''] = scheme;
  if (name.toLowerCase() !== 'window') fail(`scheme must be 'window', got '${name}'`);
  let rest = uri.slice(whole.length);
  if (!rest.startsWith('//')) fail("expected '//' after 'window:' (write 'window://host/…')");
  rest = rest.slice(2);
  if (rest.includes('#')) fail("a fragment ('#…') is not allowed; remove it or percent-encode '#' as %23");
  const q = rest.indexOf('?');
  const beforeQuery = q < 0 ? rest : rest.slice(0, q);
  const slash = beforeQuery.indexOf('/');
  const rawHost = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const rawPath = slash < 0 ? '' : beforeQuery.slice(slash);
  const out: WindowUri = { host: parseHost(rawHost), path: parsePath(rawPath) };
  if (q >= 0) applyQuery(out, rest.slice(q + 1));
  return out;
}

function checkCharacters(uri: string): void {
  if (PRINTABLE_ASCII_RE.test(uri)) return; // the common case: one scan instead of two
  const bad = SPACE_OR_CONTROL_RE.exec(uri);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    fail(`whitespace or control character U+${code} at offset ${bad.index}; percent-encode it (e.g. space as %20)`);
  }
  const lone = LONE_SURROGATE_RE.exec(uri);
  if (lone) fail(`unpaired UTF-16 surrogate at offset ${lone.index}; the URI is not well-formed Unicode`);
}

function parseHost(raw: string): string {
  if (raw === '') fail('host is empty; put the MCP identifier after window://, e.g. window://com.example.app');
  if (!HOST_RE.test(raw)) {
    fail(
      `host '${raw}' may only contain letters, digits, '-', '.', '_' and '~' ` +
        '(no user info, port or percent-escapes); use a reverse-domain name like com.example.app',
    );
  }
  return raw.toLowerCase();
}

function parsePath(raw: string): string[] {
  if (raw === '' || raw === '/') return [];
  // One trailing slash is tolerated and dropped; any other empty segment is an error.
  const body = (raw.endsWith('/') ? raw.slice(0, -1) : raw).slice(1);
  return body.split('/').map((seg, i) => {
    if (seg === '') fail(`path segment ${i + 1} is empty ('//'); remove the extra '/'`);
    return decodeComponent(seg, `path segment ${i + 1}`);
  });
}

function decodeComponent(raw: string, where: string): string {
  if (!raw.includes('%')) return raw;
  if (BAD_ESCAPE_RE.test(raw)) fail(`${where} '${raw}' has a '%' not followed by two hex digits; write '%' as %25`);
  try {
    return decodeURIComponent(raw);
  } catch {
    return fail(`${where} '${raw}' has percent-escapes that are not valid UTF-8`);
  }
}

function applyQuery(out: WindowUri, query: string): void {
  let seenPriority = false;
  let seenFullscreen = false;
  for (const pair of query.split('&')) {
    if (pair === '') continue; // `?`, `&&` and a trailing `&` carry nothing
    const eq = pair.indexOf('=');
    const key = decodeComponent(eq < 0 ? pair : pair.slice(0, eq), 'query key');
    const rawValue = eq < 0 ? undefined : pair.slice(eq + 1);
    const value = rawValue === undefined ? undefined : decodeComponent(rawValue, `value of '${key}'`);
    if (key !== 'priority' && key !== 'fullscreen') continue; // unknown keys: ignored for forward compatibility
    if (key === 'priority' ? seenPriority : seenFullscreen) fail(`'${key}' is given more than once; give it once`);
    if (key === 'priority') seenPriority = true;
    else seenFullscreen = true;
    if (value === undefined) fail(`'${key}' has no value; write '${key}=…'`);
    if (key === 'priority') out.priority = parsePriority(value);
    else out.fullscreen = parseFullscreen(value);
  }
}

/** Plain decimal digits only: `05` is 5; `+5`, `-1`, `1.5`, `1e1`, ` 5` and `` are rejected. */
function parsePriority(value: string): number {
  if (!/^[0-9]+$/.test(value)) {
    fail(`priority must be an integer from ${PRIORITY_MIN} to ${PRIORITY_MAX} written in plain digits, got '${value}'`);
  }
  const n = Number(value);
  if (n > PRIORITY_MAX) fail(`priority must be from ${PRIORITY_MIN} to ${PRIORITY_MAX}, got ${value}`);
  return n;
}

function parseFullscreen(value: string): boolean {
  const b = booleanWord(value);
  return b ?? fail(`fullscreen must be one of true/1/yes/on or false/0/no/off, got '${value}'`);
}

/**
 * A boolean word (`true/1/yes/on`, `false/0/no/off`), ASCII case-insensitive; surrounding
 * whitespace is not trimmed, so ` true` is not a word. Undefined when it is not one.
 */
export function booleanWord(value: string): boolean | undefined {
  const word = value.replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** What `buildWindowUri` accepts: a `WindowUri` whose `path` may be omitted. */
export interface WindowUriInput {
  host: string;
  path?: readonly string[];
  priority?: number;
  fullscreen?: boolean;
}

/**
 * Builds the canonical URI: lower-case scheme and host, every segment encoded with
 * `encodeURIComponent`, then `priority` and `fullscreen` (as `true`/`false`) if present.
 * Throws `McpdError(INVALID_ARGUMENT)` saying which field is wrong.
 */
export function buildWindowUri(v: WindowUriInput): string {
  const problem = (field: string, msg: string): never => {
    throw new McpdError('INVALID_ARGUMENT', `cannot build window URI: ${field}: ${msg}`);
  };
  if (typeof v.host !== 'string' || v.host === '') problem('host', 'must be a non-empty string');
  if (!HOST_RE.test(v.host)) problem('host', `'${v.host}' may only contain letters, digits, '-', '.', '_' and '~'`);
  let uri = `window://${v.host.toLowerCase()}`;
  (v.path ?? []).forEach((seg, i) => {
    if (typeof seg !== 'string' || seg === '') problem(`path[${i}]`, 'segments must be non-empty strings');
    if (LONE_SURROGATE_RE.test(seg)) problem(`path[${i}]`, 'contains an unpaired UTF-16 surrogate');
    uri += `/${encodeURIComponent(seg)}`;
  });
  const query: string[] = [];
  if (v.priority !== undefined) {
    if (!Number.isInteger(v.priority) || v.priority < PRIORITY_MIN || v.priority > PRIORITY_MAX) {
      problem('priority', `must be an integer from ${PRIORITY_MIN} to ${PRIORITY_MAX}, got ${v.priority}`);
    }
    query.push(`priority=${v.priority}`);
  }
  if (v.fullscreen !== undefined) {
    if (typeof v.fullscreen !== 'boolean') problem('fullscreen', `must be a boolean, got ${typeof v.fullscreen}`);
    query.push(`fullscreen=${v.fullscreen}`);
  }
  return query.length ? `${uri}?${query.join('&')}` : uri;
}

/** The canonical form of a URI string, or undefined when it is not a valid window URI. */
export function canonicalWindowUri(uri: string): string | undefined {
  const r = parseWindowUri(uri);
  return r.ok ? buildWindowUri(r.value) : undefined;
}

/**
 * Identity of a window for matching (`GetDeskTopReq.window`): scheme, host and path only.
 * `priority`/`fullscreen` are presentation hints, not part of which window it is.
 */
export function windowIdentity(v: WindowUri): string {
  return buildWindowUri({ host: v.host, path: v.path });
}
