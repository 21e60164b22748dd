import { hash } from 'node:crypto';
import type { AuditEntry, AuditFields } from './audit-entry.js';

/** The `prev` of a chain's first entry. */
export const GENESIS = '0'.repeat(64);

/**
 * JSON with object keys sorted at every level and no spaces: one text for one value, whoever writes it
 * (the hash is taken over it). `undefined` members are left out, as JSON.stringify does. The writer runs
 * this twice per entry, so a value JSON.stringify already writes canonically (JSON values, every object's
 * keys in order: arguments as most clients send them, and the entries `chained` builds) is handed to it whole.
 */
function canonicalJson(v: unknown): string {
  return inOrder(v) ? (JSON.stringify(v) ?? 'null') : sortedJson(v);
}

function sortedJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i === 0 ? '' : ',') + (v[i] === undefined ? 'null' : canonicalJson(v[i]));
    return `${s}]`;
  }
  const o = v as Record<string, unknown>;
  let s = '{';
  for (const k of Object.keys(o).sort()) {
    const x = o[k];
    if (x === undefined) continue;
    s += (s.length === 1 ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(x);
  }
  return `${s}}`;
}

/**
 * Whether JSON.stringify writes `v` as `sortedJson` would: no function or symbol (JSON.stringify leaves
 * those out of an object, the canonical form writes null), no object but plain ones and arrays, and every
 * object's keys in `sort()`'s order (UTF-16 code units, as `<` compares strings; index-like keys, which
 * objects keep first, fail this when they are out of that order).
 */
function inOrder(v: unknown): boolean {
  if (typeof v === 'function' || typeof v === 'symbol') return false;
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) {
    for (const x of v) if (!inOrder(x)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const o = v as Record<string, unknown>;
  let prev = '';
  for (const k of Object.keys(o)) {
    if (k < prev || !inOrder(o[k])) return false;
    prev = k;
  }
  return true;
}

/** The same members, keys in sorted order (for names of fields: no index-like keys, which objects reorder). */
function keysSorted<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) out[k] = (o as Record<string, unknown>)[k];
  return out as T;
}

function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/** The digest the `argsDigest` field carries. */
export function argsDigestOf(args: unknown): string | null {
  return args === undefined ? null : `sha256:${sha256Hex(canonicalJson(args))}`;
}

/** The hash an entry must carry: over everything but `hash` itself. */
export function entryHash(entry: Omit<AuditEntry, 'hash'> | AuditEntry): string {
  const { hash: _, ...rest } = entry as AuditEntry;
  return sha256Hex(canonicalJson(rest));
}

/**
 * Chains `fields` after `prev` (the entry `seq - 1`'s hash), with the line written for it (no newline): the
 * canonical JSON its hash is taken over, `hash` added last — one serialisation per entry.
 */
export function chained(fields: AuditFields, seq: number, prev: string): { entry: AuditEntry; line: string } {
  const body = keysSorted({ ...fields, seq, prev });
  const text = canonicalJson(body);
  const hash = sha256Hex(text);
  return { entry: { ...body, hash } as AuditEntry, line: `${text.slice(0, -1)},"hash":"${hash}"}` };
}
