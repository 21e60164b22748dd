import { createHash } from 'node:crypto';
import type { ServerSpec } from './spec.js';

/**
 * Lists whose order carries no meaning. Sorting (and de-duplicating) them keeps two specs that
 * mean the same thing in one pool; `cmd` is argv and keeps its order.
 */
const SET_LIKE_KEYS = new Set(['exposeTools', 'forbiddenTools', 'tags']);

function canonical(value: unknown, key: string | undefined): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v, undefined));
    if (key !== undefined && SET_LIKE_KEYS.has(key)) {
      const texts = [...new Set(items.map((v) => JSON.stringify(v)))].sort();
      return texts.map((t) => JSON.parse(t) as unknown);
    }
    return items;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = canonical(v, k);
    }
    return out;
  }
  return value;
}

/**
 * Canonical JSON of everything but `name` and `sandboxOptOut` (how the profile said "no sandbox" does
 * not change what runs): the identity of a pool.
 */
export function canonicalSpecJson(spec: ServerSpec): string {
  const { name: _name, sandboxOptOut: _optOut, ...rest } = spec;
  return JSON.stringify(canonical(rest, undefined));
}

/**
 * SHA-256 hex over every ServerSpec field except `name`. Identical specs share one instance pool,
 * any difference (scheduling fields included) gives a separate pool.
 */
export function specFingerprint(spec: ServerSpec): string {
  let fp = memo.get(spec);
  if (fp === undefined) {
    fp = createHash('sha256').update(canonicalSpecJson(spec)).digest('hex');
    memo.set(spec, fp);
  }
  return fp;
}

/**
 * Specs are immutable once loaded, and the hot path (every call resolves its profile's specs) asks
 * for the same objects again and again.
 */
const memo = new WeakMap<ServerSpec, string>();
