/**
 * A JSON grammar check over bytes that builds nothing: where one JSON value starting at a position ends,
 * or -1 when the bytes there are not one (RFC 8259: literals, numbers, strings with their escapes and no
 * raw control characters, arrays, objects). It lets the core pass a tool result on as the bytes the server
 * wrote — proven to be one JSON value, so it cannot break the envelope it is written into — without
 * decoding them to a string or parsing them into objects. Bytes of 0x80 and above inside strings are
 * taken as they are (UTF-8 is the reader's to decode). Scan a part of a buffer through a subarray (a view).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Nesting deeper than this is refused (no tool result needs it; the scan itself has no recursion). */
export const MAX_JSON_DEPTH = 10_000;

export function isJsonWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function skipJsonWs(b: Uint8Array, i: number): number {
  while (i < b.length && isJsonWs(b[i])) i++;
  return i;
}

/** The index just past the JSON value starting at `start` (leading whitespace skipped), or -1. */
export function jsonValueEnd(b: Uint8Array, start: number): number {
  // Open containers on an explicit stack: a deeply nested value cannot overflow the call stack.
  const stack: number[] = [];
  let i = start;
  let needValue = true;
  for (;;) {
    if (needValue) {
      i = skipJsonWs(b, i);
      const c = b[i];
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (stack.length >= MAX_JSON_DEPTH) return -1;
        stack.push(c);
        i = skipJsonWs(b, i + 1);
        if (b[i] !== closerOf(c)) {
          if (c === OPEN_OBJECT && (i = memberKey(b, i)) < 0) return -1;
          continue;
        }
        stack.pop();
        i++;
      } else if ((i = scalarEnd(b, i)) < 0) {
        return -1;
      }
    }
    // After a value: close what ends here, or go on to the next element after a comma.
    const top = stack[stack.length - 1];
    if (top === undefined) return i;
    i = skipJsonWs(b, i);
    const c = b[i];
    if (c === closerOf(top)) {
      stack.pop();
      i++;
      needValue = false;
      continue;
    }
    if (c !== COMMA) return -1;
    i = skipJsonWs(b, i + 1);
    if (top === OPEN_OBJECT && (i = memberKey(b, i)) < 0) return -1;
    needValue = true;
  }
}

function closerOf(open: number): number {
  return open === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
}

function scalarEnd(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === MINUS || isDigit(c)) return numberEnd(b, i);
  if (c === 0x74) return literalEnd(b, i, 'true');
  if (c === 0x66) return literalEnd(b, i, 'false');
  if (c === 0x6e) return literalEnd(b, i, 'null');
  return -1;
}

/** `"key" :` at `i`: the index past the colon, or -1. */
function memberKey(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE) return -1;
  const afterKey = stringEnd(b, i);
  if (afterKey < 0) return -1;
  const colon = skipJsonWs(b, afterKey);
  return b[colon] === COLON ? colon + 1 : -1;
}

/** Plain bytes after which the rest of a string is checked natively (short strings never pay for it). */
const NATIVE_AFTER = 32;
/** What ends a plain run of string bytes: an escape or a raw control character (the closing quote aside). */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const NOT_PLAIN = /[\x00-\x1f\\]/;
const indexOfByte = Buffer.prototype.indexOf;
const latin1Slice = Buffer.prototype.latin1Slice;

/**
 * The string whose opening quote is at `i`: the index past its closing quote, or -1. Byte by byte; a string
 * still plain after NATIVE_AFTER bytes (a tool's text, mostly) is long: its rest is found by the next quote
 * (memchr) and one regular-expression test of the bytes before it, several times faster than the loop, which
 * goes on where the rest holds an escape.
 */
export function stringEnd(b: Uint8Array, i: number): number {
  const end = b.length;
  const native = i + 1 + NATIVE_AFTER;
  for (i++; i < end; i++) {
    if (i === native) {
      const quote = indexOfByte.call(b, QUOTE, i);
      if (quote >= 0 && !NOT_PLAIN.test(latin1Slice.call(b, i, quote))) return quote + 1;
    }
    const c = b[i] as number;
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c !== BACKSLASH) continue;
    const e = b[++i];
    if (e === 0x75 /* u */) {
      for (let k = 1; k <= 4; k++) if (!isHex(b[i + k])) return -1;
      i += 4;
    } else if (!(e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) {
      return -1;
    }
  }
  return -1;
}

function numberEnd(b: Uint8Array, i: number): number {
  if (b[i] === MINUS) i++;
  if (b[i] === ZERO) i++;
  else if (isDigit(b[i])) while (isDigit(b[i])) i++;
  else return -1;
  if (b[i] === DOT) {
    i++;
    if (!isDigit(b[i])) return -1;
    while (isDigit(b[i])) i++;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === PLUS || b[i] === MINUS) i++;
    if (!isDigit(b[i])) return -1;
    while (isDigit(b[i])) i++;
  }
  return i;
}

function literalEnd(b: Uint8Array, i: number, word: string): number {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}
