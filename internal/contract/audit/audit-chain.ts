import { hash } from 'node:crypto';
import type { AuditCallFields, AuditEntry, AuditFields } from './audit-entry.js';

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
  if (fields.kind === 'call') {
    const text = callText(fields, seq, prev);
    const hash = sha256Hex(text);
    return { entry: callEntry(fields, seq, prev, hash), line: `${text.slice(0, -1)},"hash":"${hash}"}` };
  }
  const body = keysSorted({ ...fields, seq, prev });
  const text = canonicalJson(body);
  const hash = sha256Hex(text);
  return { entry: { ...body, hash } as AuditEntry, line: `${text.slice(0, -1)},"hash":"${hash}"}` };
}

/** The entry's object, field by field: `{ ...fields, seq, prev, hash }` took V8's slow path, ten times the cost. */
function callEntry(f: AuditCallFields, seq: number, prev: string, hash: string): AuditEntry {
  const e: AuditEntry = {
    kind: 'call',
    time: f.time,
    caller: f.caller,
    face: f.face,
    client: f.client,
    method: f.method,
    target: f.target,
    outcome: f.outcome,
    durationMs: f.durationMs,
    argsDigest: f.argsDigest,
    seq,
    prev,
    hash,
  };
  if (f.via !== undefined) e.via = f.via;
  if (f.message !== undefined) e.message = f.message;
  if (f.rule !== undefined) e.rule = f.rule;
  if (f.retryAfterMs !== undefined) e.retryAfterMs = f.retryAfterMs;
  if (f.args !== undefined) e.args = f.args;
  return e;
}

/**
 * A call entry's canonical JSON without `hash`, written field by field in sorted key order: what
 * `canonicalJson` makes of it (audit-chain.test.ts holds the two to the same text for every field), at a
 * fraction of the cost — this runs for every call the log records.
 */
function callText(f: AuditCallFields, seq: number, prev: string): string {
  const j = JSON.stringify;
  let s = f.args === undefined ? '{' : `{"args":${canonicalJson(f.args)},`;
  s += `"argsDigest":${j(f.argsDigest)},"caller":${j(f.caller)},"client":${j(f.client)},"durationMs":${j(f.durationMs)}`;
  s += `,"face":${j(f.face)},"kind":"call"`;
  if (f.message !== undefined) s += `,"message":${j(f.message)}`;
  s += `,"method":${j(f.method)},"outcome":${j(f.outcome)},"prev":${j(prev)}`;
  if (f.retryAfterMs !== undefined) s += `,"retryAfterMs":${j(f.retryAfterMs)}`;
  if (f.rule !== undefined) s += `,"rule":${j(f.rule)}`;
  s += `,"seq":${j(seq)},"target":${j(f.target)},"time":${j(f.time)}`;
  if (f.via !== undefined) s += `,"via":${j(f.via)}`;
  return `${s}}`;
}
