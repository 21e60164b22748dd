import { sha256Hex } from '../../../contract/model/naming.js';
import type { JsonObject, JsonValue } from '../../../shared/json.js';

/** JSON with object keys sorted at every level: equal values give equal text, whatever the key order. */
function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const k of keys) {
    const v = value[k];
    // Runtime objects may carry `undefined`; JSON.stringify drops such keys, and so do we.
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * Downstream definitions usually come from a metadata cache and are the same objects from one rebuild
 * to the next, so their hashes are remembered per object.
 */
const hashCache = new WeakMap<JsonObject, string>();

export function definitionHash(definition: JsonObject): string {
  let h = hashCache.get(definition);
  if (h === undefined) {
    h = sha256Hex(canonicalJson(definition));
    hashCache.set(definition, h);
  }
  return h;
}

const ETAG_LENGTH = 16;

/** Content hash over rows of fields; rows must already be in their canonical (sorted) order. */
export function etagOf(rows: Iterable<readonly string[]>): string {
  const lines: string[] = [];
  for (const row of rows) lines.push(row.join('\u0000'));
  return sha256Hex(lines.join('\n')).slice(0, ETAG_LENGTH);
}
