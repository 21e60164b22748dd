import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted (code-unit order) at every depth and no whitespace, so that two
 * equal parameter objects always give the same digest whatever order their keys were written in.
 * `undefined` members are dropped as JSON.stringify does; non-finite numbers are refused.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot digest the non-finite number ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  throw new TypeError(`cannot digest a value of type ${typeof value}`);
}

/** The params allow-list per ui-control method: only these fields decide what the action does. */
const DIGEST_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'desktop.click': ['route', 'target'],
  'desktop.typeText': ['route', 'target', 'text', 'options'],
  'desktop.hotkey': ['route', 'keys', 'options'],
};

export const UI_CONTROL_METHODS = Object.keys(DIGEST_FIELDS);

/**
 * First 16 hex characters of sha256(canonical JSON of the method's allow-listed params). `meta` and
 * `confirm` are never part of it: the token is issued before either exists.
 */
export function paramsDigest(method: string, params: Record<string, unknown>): string {
  const fields = DIGEST_FIELDS[method];
  if (!fields) throw new TypeError(`${method} takes no confirm token`);
  const picked: Record<string, unknown> = {};
  for (const f of fields) if (params[f] !== undefined) picked[f] = params[f];
  return createHash('sha256').update(canonicalJson(picked)).digest('hex').slice(0, 16);
}
