/**
 * Allocation-free check of the common, well-formed `window://` URI for the organizer's hot path.
 *
 * It answers only when the answer is certain and the URI is plain: lower-case `window://`,
 * printable ASCII, percent-escapes only of ASCII bytes in the path, no escapes in the query, no
 * repeated known key. Everything else — every error included — returns `SCAN_SLOW`, and the caller
 * uses `parseWindowUri`, which owns the messages and the rare cases. So the fast path can never
 * accept what the parser rejects or disagree with it on priority or fullscreen.
 */
import { booleanWord, PRIORITY_MAX } from './window-uri.js';

/** The full parser must decide. */
export const SCAN_SLOW = -1;
/** Bits 0–7 of a scan result: priority 0–100, or this value when the URI has none. */
export const SCAN_NO_PRIORITY = 0xff;
/** Bits 8–9 of a scan result: fullscreen absent (0), false (1) or true (2). */
export const SCAN_FULLSCREEN_SHIFT = 8;

const PREFIX = 'window://';
const SLASH = 47;
const QUESTION = 63;
const PERCENT = 37;
const HASH = 35;
const AMP = 38;
const EQUALS = 61;

/** A packed scan result (see the constants above) or `SCAN_SLOW`. */
export function scanWindowUri(uri: string): number {
  if (!uri.startsWith(PREFIX)) return SCAN_SLOW;
  const len = uri.length;
  let i = PREFIX.length;
  while (i < len && isHostChar(uri.charCodeAt(i))) i++;
  if (i === PREFIX.length) return SCAN_SLOW; // empty host: an error, worded by the parser
  if (i < len && uri.charCodeAt(i) === SLASH) {
    i = scanPath(uri, i + 1);
    if (i < 0) return SCAN_SLOW;
  }
  if (i === len) return SCAN_NO_PRIORITY;
  if (uri.charCodeAt(i) !== QUESTION) return SCAN_SLOW; // a character the host may not contain
  return scanQuery(uri, i + 1);
}

/** Path segments after the first `/`; returns the index of `?` or the end, or -1 for the slow path. */
function scanPath(uri: string, from: number): number {
  const len = uri.length;
  let segStart = from;
  let i = from;
  while (i < len) {
    const c = uri.charCodeAt(i);
    if (c === QUESTION) break;
    if (c === SLASH) {
      if (i === segStart) return -1; // empty segment
      segStart = ++i;
      continue;
    }
    if (c === PERCENT) {
      const hi = hexValue(uri.charCodeAt(i + 1));
      // An escape of a byte ≥ 0x80 must be checked as UTF-8 by the parser.
      if (hi < 0 || hi > 7 || hexValue(uri.charCodeAt(i + 2)) < 0) return -1;
      i += 3;
      continue;
    }
    if (c < 0x21 || c > 0x7e || c === HASH) return -1;
    i++;
  }
  // Ending right after a `/` is the one tolerated trailing slash (or the lone `/`).
  return i;
}

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
      else if (c === PERCENT || c < 0x21 || c > 0x7e || c === HASH) return SCAN_SLOW;
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

/** RFC 3986 unreserved: letters, digits, `-`, `.`, `_`, `~`. */
function isHostChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c === 126;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}
