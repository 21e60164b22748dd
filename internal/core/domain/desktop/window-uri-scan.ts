/**
 * Allocation-free check of the common, well-formed `window://` URI for the organizer's hot path.
 *
 * It answers only when the answer is certain and the URI is plain: lower-case `window://`,
 * printable ASCII, percent-escapes only of ASCII bytes in the path, no escapes in the query, no
 * repeated known key. Everything else — every error included — returns `SCAN_SLOW`, and the caller
 * uses `parseWindowUri`, which owns the messages and the rare cases. So the fast path can never
 * accept what the parser rejects or disagree with it on priority or fullscreen.
 */
import { booleanWord, PRIORITY_MAX } from '../../../contract/desktop/window-uri.js';

/** The full parser must decide. */
export const SCAN_SLOW = -1;
/** Bits 0–7 of a scan result: priority 0–100, or this value when the URI has none. */
export const SCAN_NO_PRIORITY = 0xff;
/** Bits 8–9 of a scan result: fullscreen absent (0), false (1) or true (2). */
export const SCAN_FULLSCREEN_SHIFT = 8;

// Lower-case `window://`, a host, segments of printable ASCII (escapes only of ASCII bytes, which
// always decode), at most one trailing `/`, and a query without escapes, `#` or non-printables.
// A native regex checks this faster than a character loop in JavaScript.
const PLAIN_RE =
  /^window:\/\/[A-Za-z0-9\-._~]+(?:\/(?:[\x21\x22\x24\x26-\x2e\x30-\x3e\x40-\x7e]|%[0-7][0-9A-Fa-f])+)*\/?(?:\?[\x21\x22\x24\x26-\x7e]*)?$/;
const AMP = 38;
const EQUALS = 61;

/** A packed scan result (see the constants above) or `SCAN_SLOW`. */
export function scanWindowUri(uri: string): number {
  if (!PLAIN_RE.test(uri)) return SCAN_SLOW;
  const q = uri.indexOf('?');
  return q < 0 ? SCAN_NO_PRIORITY : scanQuery(uri, q + 1);
}

/** The pairs of a query PLAIN_RE accepted: only `priority` and `fullscreen` matter. */
function scanQuery(uri: string, from: number): number {
  const len = uri.length;
  let priority = SCAN_NO_PRIORITY;
  let fullscreen = 0;
  let i = from;
  while (i <= len) {
    const start = i;
    let eq = -1;
    for (; i < len; i++) {
      const c = uri.charCodeAt(i);
      if (c === AMP) break;
      if (c === EQUALS && eq < 0) eq = i;
    }
    const keyEnd = eq < 0 ? i : eq;
    if (keyEnd - start === 8 && uri.startsWith('priority', start)) {
      if (priority !== SCAN_NO_PRIORITY || eq < 0) return SCAN_SLOW;
      priority = digitsValue(uri, eq + 1, i);
      if (priority < 0) return SCAN_SLOW;
    } else if (keyEnd - start === 10 && uri.startsWith('fullscreen', start)) {
      if (fullscreen !== 0 || eq < 0) return SCAN_SLOW;
      const b = booleanWord(uri.slice(eq + 1, i));
      if (b === undefined) return SCAN_SLOW;
      fullscreen = b ? 2 : 1;
    }
    i++; // past `&` (or past the end, which ends the loop)
  }
  return priority | (fullscreen << SCAN_FULLSCREEN_SHIFT);
}

/** Plain decimal digits in [from, to) with a value ≤ PRIORITY_MAX, else -1. */
function digitsValue(s: string, from: number, to: number): number {
  if (from >= to) return -1;
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
    if (v > PRIORITY_MAX) return -1;
  }
  return v;
}
