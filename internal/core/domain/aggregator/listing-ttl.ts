import type { JsonObject } from '../../../shared/json.js';

/**
 * How long a 2026-07-28 server lets its list and read results be served from a cache (SEP-2549 `ttlMs`;
 * `0` = ask again every time). A 2025-11-25 result carries none: undefined.
 */
function ttlOf(result: JsonObject): number | undefined {
  const ttl = result.ttlMs;
  return typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 0 ? ttl : undefined;
}

/** The results one listing is made of (pages, resources with templates): the shortest ttl bounds them all. */
export class ListingTtl {
  private ttl: number | undefined;

  /** Notes a result's ttl and gives the result back. */
  observe(result: JsonObject): JsonObject {
    const t = ttlOf(result);
    if (t !== undefined) this.ttl = this.ttl === undefined ? t : Math.min(this.ttl, t);
    return result;
  }

  get ms(): number | undefined {
    return this.ttl;
  }
}
