import { createHash } from 'node:crypto';
import type { AuditEntry, AuditFields } from './audit-entry.js';

/** The `prev` of a chain's first entry. */
export const GENESIS = '0'.repeat(64);

/**
 * JSON with object keys sorted at every level and no spaces: one text for one value, whoever writes it
 * (the hash is taken over it). `undefined` members are left out, as JSON.stringify does.
 */
function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const o = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(o).sort()) {
    if (o[k] === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(o[k])}`);
  }
  return `{${parts.join(',')}}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
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
  const body = { ...fields, seq, prev };
  const text = canonicalJson(body);
  const hash = sha256Hex(text);
  return { entry: { ...body, hash } as AuditEntry, line: `${text.slice(0, -1)},"hash":"${hash}"}` };
}
