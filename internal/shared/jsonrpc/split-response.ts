import type { JsonObject } from '../json.js';
import { isJsonWs, jsonValueEnd, skipJsonWs, stringEnd } from './json-scan.js';

/**
 * Cuts the object-valued member `key` out of the JSON object `text`: the envelope (the text with that
 * member's value replaced by 0) and the member's value with its exact text. Undefined unless the member
 * is the last object-valued one and both halves parse — then the cut is sound: the envelope proves the
 * surroundings are one object holding `key`, and the cut-out text proves to be one JSON object.
 */
export function splitObjectMember(
  text: string,
  key: string,
): { envelope: Record<string, unknown>; value: JsonObject; valueText: string } | undefined {
  const quoted = `"${key}"`;
  const at = text.indexOf(quoted);
  if (at < 0) return undefined;
  let start = skipWs(text, at + quoted.length);
  if (text.charCodeAt(start) !== 0x3a /* : */) return undefined;
  start = skipWs(text, start + 1);
  if (text.charCodeAt(start) !== 0x7b /* { */) return undefined;
  let last = text.length - 1;
  while (last > start && isJsonWs(text.charCodeAt(last))) last--;
  if (text.charCodeAt(last) !== 0x7d /* } */) return undefined;
  const end = text.lastIndexOf('}', last - 1);
  if (end <= start) return undefined;
  let envelope: unknown;
  let value: unknown;
  try {
    envelope = JSON.parse(`${text.slice(0, at)}${quoted}:0${text.slice(end + 1)}`);
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!isObject(envelope) || envelope[key] !== 0 || !isObject(value)) return undefined;
  return { envelope, value: value as JsonObject, valueText: text.slice(start, end + 1) };
}

function skipWs(s: string, i: number): number {
  while (i < s.length && isJsonWs(s.charCodeAt(i))) i++;
  return i;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A success response cut on its bytes: the envelope read, the result left as the peer wrote it. */
export interface ResultBytes {
  id: number;
  /** The result object's bytes, a view into the line (never copied, never decoded). */
  resultJson: Buffer;
  /** The result's top-level `isError` is `true` (a tool's error result). */
  isError: boolean;
}

const RESULT_KEY = Buffer.from('"result"');
/** Bytes of a response line outside its result: more than this is no response worth cutting here. */
const MAX_ENVELOPE_BYTES = 4096;

/**
 * Splits a JSON-RPC success response with a numeric id and an object result into its envelope and the
 * result's own bytes, without turning the result into a string or objects: the result's extent is found
 * by a grammar check (json-scan.ts), so it is exactly one JSON object, and only the envelope around it
 * (a few dozen bytes) is parsed. Undefined for anything else (requests, notifications, errors, string
 * ids, unusual layouts), which the caller parses as usual.
 */
export function splitResultBytes(line: Buffer): ResultBytes | undefined {
  const at = line.indexOf(RESULT_KEY);
  if (at < 0 || at > MAX_ENVELOPE_BYTES) return undefined;
  let start = skipJsonWs(line, at + RESULT_KEY.length);
  if (line[start] !== 0x3a /* : */) return undefined;
  start = skipJsonWs(line, start + 1);
  const scan = scanObject(line, start);
  if (!scan || at + line.length - scan.end > MAX_ENVELOPE_BYTES) return undefined;
  const rest = line.toString('utf8', scan.end);
  const envelopeText = `${line.toString('utf8', 0, at)}"result":0${rest}`;
  let e: unknown;
  try {
    e = JSON.parse(envelopeText);
  } catch {
    return undefined;
  }
  // Exactly {jsonrpc, id, result} with our 0 as the result: the cut was the top-level result, and the
  // only one (a second "result" key would be the one JSON.parse keeps).
  if (!isObject(e) || e.jsonrpc !== '2.0' || typeof e.id !== 'number' || e.result !== 0 || Object.keys(e).length !== 3) return undefined;
  if (rest.includes('"result"')) return undefined;
  return { id: e.id, resultJson: line.subarray(start, scan.end), isError: scan.isError };
}

const IS_ERROR = Buffer.from('"isError"');
const TRUE = Buffer.from('true');

/**
 * The JSON object at `start`, checked member by member: where it ends, and whether its own `isError`
 * member is `true`. Undefined when the bytes there are not one JSON object.
 */
function scanObject(b: Buffer, start: number): { end: number; isError: boolean } | undefined {
  if (b[start] !== 0x7b /* { */) return undefined;
  let isError = false;
  let i = skipJsonWs(b, start + 1);
  if (b[i] === 0x7d /* } */) return { end: i + 1, isError };
  for (;;) {
    if (b[i] !== 0x22 /* " */) return undefined;
    const keyEnd = stringEnd(b, i);
    if (keyEnd < 0) return undefined;
    const colon = skipJsonWs(b, keyEnd);
    if (b[colon] !== 0x3a /* : */) return undefined;
    const valueStart = skipJsonWs(b, colon + 1);
    const valueEnd = jsonValueEnd(b, valueStart);
    if (valueEnd < 0) return undefined;
    // The last `isError` counts, as with JSON.parse; a key spelled with escapes is decoded first.
    if (keyIs(b, i, keyEnd, IS_ERROR, 'isError')) isError = b.subarray(valueStart, valueEnd).equals(TRUE);
    i = skipJsonWs(b, valueEnd);
    if (b[i] === 0x7d /* } */) return { end: i + 1, isError };
    if (b[i] !== 0x2c /* , */) return undefined;
    i = skipJsonWs(b, i + 1);
  }
}

function keyIs(b: Buffer, start: number, end: number, quoted: Buffer, name: string): boolean {
  const key = b.subarray(start, end);
  if (key.equals(quoted)) return true;
  return key.includes(0x5c /* \ */) && end - start < 64 && JSON.parse(key.toString('utf8')) === name;
}
