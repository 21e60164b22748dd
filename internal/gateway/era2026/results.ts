import type { JsonObject, JsonValue } from '../../shared/json.js';
import { etagOf } from '../adapter.js';
import { CACHEABLE_METHODS, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY } from './protocol.js';
import { isJsonObject } from '../../shared/json.js';
import type { RpcError } from './channel.js';
import { FRESH_FOR_META } from '../../contract/areas/params.js';

/**
 * How long a client may keep a list: the core's lists are ETag snapshots and a change ends them early
 * (list_changed on a subscriptions/listen stream), so a list with an ETag is good for a minute — or less,
 * when a downstream list it drew on goes stale sooner by its own TTL (the core's `_meta["mcpd/freshForMs"]`):
 * a server that changes without notifying is then seen as soon as the core would list it again. A
 * resource read has no change notice unless subscribed: it is stale at once.
 */
const LIST_TTL_MS = 60_000;

/** A 2025-11-25 result as 2026-07-28 wants it: `resultType`, and caching hints where cacheable. */
export function decorateResult(method: string, result: JsonObject): JsonObject {
  // A tools/call the core made a task of answers with its CreateTaskResult (resultType "task").
  const kept = method === 'tools/call' && result.resultType === 'task';
  const out: JsonObject = { ...result, resultType: kept ? 'task' : 'complete' };
  if (CACHEABLE_METHODS.has(method)) {
    out.ttlMs = method !== 'resources/read' && etagOf(result) !== undefined ? listTtlMs(result) : 0;
    // Lists and reads are the caller's profile: never shared across callers.
    out.cacheScope = 'private';
  }
  return out;
}

/** A minute, shortened to the time left of the downstream lists the core's page drew on. */
function listTtlMs(result: JsonObject): number {
  const fresh = isJsonObject(result._meta) ? result._meta[FRESH_FOR_META] : undefined;
  if (typeof fresh !== 'number' || !Number.isFinite(fresh)) return LIST_TTL_MS;
  return Math.min(LIST_TTL_MS, Math.max(0, Math.floor(fresh)));
}

/** Errors as 2026-07-28 has them: an unknown resource is -32602 with `data.uri` (SEP-2164). */
export function mapError(method: string, params: JsonObject, e: RpcError): RpcError {
  if (e.code === MISSING_REQUIRED_CLIENT_CAPABILITY) return missingCapability(e);
  if (method !== 'resources/read' || (e.code !== -32002 && e.code !== INVALID_PARAMS)) return e;
  const data: JsonValue = {
    ...(typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data) ? e.data : {}),
    uri: params.uri ?? null,
  };
  return { code: INVALID_PARAMS, message: e.message, data };
}

/**
 * -32021 keeps the server's `data.requiredCapabilities` where 2026-07-28 has it: the core wraps a
 * downstream error's data as `{ reason, details }`.
 */
function missingCapability(e: RpcError): RpcError {
  const data = e.data;
  const details = isJsonObject(data) ? data.details : undefined;
  if (isJsonObject(details) && isJsonObject(details.requiredCapabilities))
    return { ...e, data: { requiredCapabilities: details.requiredCapabilities } };
  return e;
}
