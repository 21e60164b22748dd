import type { JsonObject } from '../../shared/json.js';
import { DpeError, DPE_INVALID_URI } from './dpe-error.js';

/**
 * Which check failed: 1–8 are the guide's rules; 'syntax' covers what the guide's rules take for
 * granted (no whitespace, no fragment, well-formed percent escapes, a non-empty doc-ref).
 */
export type DpeRule = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 'syntax';

const RULE_NAMES: Record<string, string> = {
  1: 'rule 1 (scheme must be "dpe")',
  2: 'rule 2 (host must not be empty)',
  3: 'rule 3 (sub-path must be pages/{N} or elements/{ID})',
  4: 'rule 4 (format must be json, markdown or text)',
  5: 'rule 5 (depth must be metadata or pages)',
  6: 'rule 6 (offset must be a non-negative integer)',
  7: 'rule 7 (limit must be an integer in 1..100)',
  8: 'rule 8 (categories must be a comma-separated list of element categories)',
  syntax: 'URI syntax',
};

/** Builds the 4204 error: which rule, what was wrong, what to do. */
export function invalidUri(raw: string, rule: DpeRule, problem: string, hint: string, extra: JsonObject = {}): DpeError {
  const message = `Invalid DPE URI ${JSON.stringify(raw)}: ${RULE_NAMES[String(rule)]} violated: ${problem}; ${hint}`;
  return new DpeError(DPE_INVALID_URI, message, { uri: raw, rule, reason: problem, hint, ...extra });
}

/** Host = MCP server name; restricted to RFC 3986 unreserved characters so it needs no escaping. */
export const HOST_RE = /^[A-Za-z0-9._~-]+$/;

/** Canonical non-negative integer: no sign, no leading zeros (so one page has exactly one URI). */
const CANONICAL_INT_RE = /^(0|[1-9][0-9]*)$/;

export function parseCanonicalInt(s: string): number | undefined {
  if (!CANONICAL_INT_RE.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function tryDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
