import type { JsonObject } from '../json.js';

export interface SplitResponse {
  id: number;
  result: JsonObject;
  /** The result exactly as the peer wrote it: valid JSON, passed on without serialising it again. */
  resultText: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Splits a JSON-RPC success response with a numeric id and an object result into its envelope and the
 * result's own JSON text, parsing each once — as much work as parsing the line, and the result never
 * needs to be serialised again on its way out. Undefined for anything else (requests, notifications,
 * errors, string ids, unusual layouts), which the caller parses as usual.
 */
export function splitResultResponse(line: string): SplitResponse | undefined {
  const split = splitObjectMember(line, 'result');
  if (!split) return undefined;
  const e = split.envelope;
  if (e.jsonrpc !== '2.0' || typeof e.id !== 'number' || Object.keys(e).length !== 3) return undefined;
  return { id: e.id, result: split.value, resultText: split.valueText };
}

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
  while (last > start && WS.has(text.charCodeAt(last))) last--;
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
  while (i < s.length && WS.has(s.charCodeAt(i))) i++;
  return i;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
