import { McpdError } from '../../shared/errors.js';
import { isJsonObject, type JsonObject } from '../../shared/json.js';

/** MCP-shaped params, checked field by field: a wrong one is INVALID_ARGUMENT naming the method and field. */

export function optionalString(params: JsonObject, key: string): string | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new McpdError('INVALID_ARGUMENT', `"${key}" must be a string`);
  return v;
}

export function requiredString(params: JsonObject, key: string, method: string): string {
  const v = params[key];
  if (typeof v !== 'string' || v === '') throw new McpdError('INVALID_ARGUMENT', `${method} needs a non-empty string "${key}"`);
  return v;
}

/** An object field, `{}` when missing. */
export function objectParam(params: JsonObject, key: string, method: string): JsonObject {
  const v = params[key] ?? {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new McpdError('INVALID_ARGUMENT', `${method} "${key}" must be an object, got ${Array.isArray(v) ? 'an array' : typeof v}`);
  }
  return v;
}

export function optionalInt(params: JsonObject, key: string): number | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new McpdError('INVALID_ARGUMENT', `"${key}" must be an integer, got ${JSON.stringify(v)}`);
  return v;
}

export function optionalStrings(params: JsonObject, key: string): string[] | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new McpdError('INVALID_ARGUMENT', `"${key}" must be an array of strings`);
  return v as string[];
}

/** A list request: `{cursor?}`. */
export function cursorParams(params: JsonObject): { cursor?: string } {
  return { cursor: optionalString(params, 'cursor') };
}

/** What a list page carries beside its items, into `_meta`. */
export interface PageMeta {
  etag: string;
  nextCursor?: string;
  pending?: readonly string[];
  freshForMs?: number;
}

/** A list result as MCP shapes it, with the snapshot's etag (and its freshness) in `_meta`. */
export function mcpPage(key: string, items: readonly { definition: JsonObject }[], page: PageMeta): JsonObject {
  const result: JsonObject = { [key]: items.map((i) => i.definition) };
  if (page.nextCursor) result.nextCursor = page.nextCursor;
  const meta: JsonObject = { 'mcpd/etag': page.etag };
  // Servers still starting when the listing budget ran out: their items come with list_changed.
  if (page.pending?.length) meta[PENDING_META] = [...page.pending];
  // A downstream list's TTL (a 2026-07-28 server's ttlMs) bounds how long a caller may keep this page.
  if (page.freshForMs !== undefined) meta[FRESH_FOR_META] = page.freshForMs;
  result._meta = meta;
  return result;
}

/** The `_meta` key with the milliseconds until a downstream list the page drew on goes stale (absent: none has a TTL). */
export const FRESH_FOR_META = 'mcpd/freshForMs';

/**
 * The `_meta` key of a server's input request naming the key its answer goes under (MRTR `inputRequests`,
 * a task's `inputRequests`); a request without one is keyed `<method>_<n>` (docs/eras.md).
 */
export const INPUT_KEY_META = 'mcpd/inputKey';

/** The first page's `_meta` key naming the servers a listing answered without (still starting). */
export const PENDING_META = 'mcpd/pending';

/** gRPC names the caller in every request; empty means the default caller. */
export const callerOf = (caller: string): string => caller || 'default';

/** Whether MCP request params carry `_meta.progressToken` (a string or a number). */
export function hasProgressToken(params: JsonObject): boolean {
  const meta = params._meta;
  if (!isJsonObject(meta)) return false;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number';
}
