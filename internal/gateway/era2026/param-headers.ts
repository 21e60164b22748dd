import type { IncomingMessage } from 'node:http';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import { EraError, HEADER_MISMATCH } from './protocol.js';

/**
 * SEP-2243 custom headers: a tool's `inputSchema` may mark a primitive argument with
 * `"x-mcp-header": "Name"`; a 2026-07-28 client then mirrors that argument in `Mcp-Param-Name`
 * (plain, or `=?base64?…?=` for values a header cannot carry). Proxies route on those headers, so the
 * server refuses a call whose header is missing, malformed or disagrees with the body (-32020, 400).
 */

const SCHEMA_KEY = 'x-mcp-header';
const HEADER_PREFIX = 'mcp-param-';
const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';
/** Canonical (padded) Base64: "SGVsbG8" without its "=" is refused as the spec's table says. */
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** One argument a tool mirrors in a header: where it sits in `arguments` and the header's name. */
export interface ParamHeader {
  path: string[];
  header: string;
  type?: string;
}

/**
 * The `x-mcp-header` declarations of one input schema, found along chains of `properties` only (the
 * spec allows them nowhere else; a declaration elsewhere makes the tool invalid, which is the
 * client's to act on, so it is not looked for here).
 */
export function paramHeadersOf(schema: JsonValue | undefined): ParamHeader[] {
  const out: ParamHeader[] = [];
  const visit = (node: JsonValue | undefined, path: string[]): void => {
    if (!isJsonObject(node)) return;
    const header = node[SCHEMA_KEY];
    if (path.length > 0 && typeof header === 'string' && header !== '')
      out.push({ path, header, ...(typeof node.type === 'string' ? { type: node.type } : {}) });
    if (isJsonObject(node.properties)) for (const [key, child] of Object.entries(node.properties)) visit(child, [...path, key]);
  };
  visit(schema, []);
  return out;
}

/** Why a call's `Mcp-Param-*` headers do not fit its body, or undefined when they do. */
export function paramHeaderFault(req: IncomingMessage, declared: ParamHeader[], args: JsonObject): EraError | undefined {
  for (const d of declared) {
    const body = valueAt(args, d.path);
    const want = headerText(body);
    // No value in the body (or null): the client sends no header and the server expects none.
    if (want === undefined) continue;
    const name = `Mcp-Param-${d.header}`;
    const raw = req.headers[HEADER_PREFIX + d.header.toLowerCase()];
    const sent = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    const where = `arguments.${d.path.join('.')}`;
    if (sent === undefined)
      return fault(`the ${name} header is missing but ${where} is ${JSON.stringify(body)}; send it (tools/list's x-mcp-header)`);
    const got = decoded(sent);
    if (got === undefined) return fault(`the ${name} header's =?base64?…?= value is not canonical Base64 of UTF-8 text`);
    const same = typeof body === 'number' && DECIMAL.test(got) ? Number(got) === body : got === want;
    if (!same) return fault(`the ${name} header says ${JSON.stringify(got)} but ${where} is ${JSON.stringify(body)}`);
  }
  return undefined;
}

/** The header form of a primitive argument (strings as they are, numbers in decimal, booleans lower-case). */
function headerText(v: JsonValue | undefined): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A header value with the Base64 sentinel decoded; a value without both ends of it is literal. */
function decoded(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END) && value.length >= SENTINEL_START.length + SENTINEL_END.length))
    return value;
  const b64 = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    // Not UTF-8: the same refusal as bad Base64 (the caller says so).
    return undefined;
  }
}

function valueAt(root: JsonObject, path: string[]): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const key of path) node = isJsonObject(node) ? node[key] : undefined;
  return node;
}

function fault(why: string): EraError {
  return new EraError(400, HEADER_MISMATCH, `Header mismatch: ${why}`);
}
