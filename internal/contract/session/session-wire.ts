import { MAX_FRAME_BYTES } from './session-framing.js';
import { SessionClientMessage, SessionServerMessage } from '../gen/mcpd/control/v1/session.js';

/**
 * The two Session messages of every tool call, encoded straight into one framed buffer: the JSON text
 * is written once, where the generic path (ts-proto's writer, then `frame`) encodes the text to bytes,
 * copies them into the message and copies the message into the frame. Byte-for-byte what
 * `frame(SessionClientMessage.encode(…))` / `frame(SessionServerMessage.encode(…))` give for the same
 * fields (session-wire.test.ts checks it); field numbers are those of proto/mcpd/control/v1/control.proto.
 */

const LEN = 2; // protobuf wire type of strings, bytes and messages
const tag = (field: number, wire: number): number => (field << 3) | wire;

function varintSize(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

function writeVarint(out: Buffer, at: number, v: number): number {
  while (v >= 128) {
    out[at++] = (v % 128) | 128;
    v = Math.floor(v / 128);
  }
  out[at++] = v;
  return at;
}

function checkSize(payload: number): void {
  if (payload > MAX_FRAME_BYTES) throw new Error(`session message of ${payload} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
}

function header(payload: number): Buffer {
  checkSize(payload);
  const out = Buffer.allocUnsafe(4 + payload);
  out.writeUInt32BE(payload, 0);
  return out;
}

/** Results smaller than this are copied into their frame (one buffer, one write); larger ones are not copied. */
export const COPY_RESULT_BELOW = 64 * 1024;

/**
 * `SessionServerMessage{response: {id, result_json}}` up to the result's bytes: the buffer (with room for
 * `room` more bytes after the head) and where the result goes. `framed` puts the 4-byte frame header first.
 */
function responseHead(id: number, n: number, framed: boolean, room: number): { out: Buffer; at: number } {
  // proto3 leaves a zero id out; ids start at 1, but the encoding stays exact either way.
  const idBytes = id === 0 ? 0 : 1 + varintSize(id);
  const inner = idBytes + 1 + varintSize(n) + n;
  const payload = 1 + varintSize(inner) + inner;
  checkSize(payload);
  const out = Buffer.allocUnsafe((framed ? 4 : 0) + payload - n + room);
  let at = 0;
  if (framed) {
    out.writeUInt32BE(payload, 0);
    at = 4;
  }
  out[at++] = tag(2, LEN);
  at = writeVarint(out, at, inner);
  if (id !== 0) {
    out[at++] = tag(1, 0);
    at = writeVarint(out, at, id);
  }
  out[at++] = tag(2, LEN);
  at = writeVarint(out, at, n);
  return { out, at };
}

/** Frame of `SessionServerMessage{response: {id, result_json}}` (field 2 → SessionResponse fields 1, 2), in one buffer. */
export function responseFrame(id: number, resultJson: Buffer): Buffer {
  const { out, at } = responseHead(id, resultJson.length, true, resultJson.length);
  resultJson.copy(out, at);
  return out;
}

/**
 * The same frame as parts to write in order: the header, then the result's own buffer, uncopied — or one
 * buffer for a small result, where a copy is cheaper than a second write.
 */
export function responseFrameParts(id: number, resultJson: Buffer): Buffer | readonly Buffer[] {
  if (resultJson.length < COPY_RESULT_BELOW) return responseFrame(id, resultJson);
  const { out } = responseHead(id, resultJson.length, true, 0);
  return [out, resultJson];
}

/** `SessionServerMessage{response: {id, result_json}}` unframed (a gRPC message, a /2 MESSAGE payload): one copy of the result. */
function responseMessage(id: number, resultJson: Uint8Array): Buffer {
  const { out, at } = responseHead(id, resultJson.length, false, resultJson.length);
  out.set(resultJson, at);
  return out;
}

/**
 * `SessionServerMessage.encode(msg)`, with a successful response written by responseMessage: the generic
 * writer grows a buffer by doubling and copies it out again, three times a large result's size. The
 * bytes are the same (session-wire.test.ts).
 */
export function encodeServerMessage(msg: SessionServerMessage): Buffer {
  const r = msg.response;
  if (r?.resultJson && !r.error && Object.keys(msg).every((k) => k === 'response' || msg[k as keyof SessionServerMessage] === undefined)) {
    return responseMessage(r.id, r.resultJson);
  }
  const bytes = SessionServerMessage.encode(msg).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * `SessionServerMessage.decode(bytes)`, with a successful response read in place: its result is a view
 * into `bytes` (the generated decoder copies a bytes field into a new Buffer). Anything else is decoded
 * by the generated code.
 */
export function decodeServerMessage(bytes: Uint8Array): SessionServerMessage {
  return decodeResponse(bytes) ?? SessionServerMessage.decode(bytes);
}

/** Where the field-2 message that is the whole of `b` (a response, a request) starts; undefined for anything else. */
function field2Body(b: Uint8Array): number | undefined {
  if (b[0] !== tag(2, LEN)) return undefined;
  const inner = readVarint(b, 1);
  return inner && inner.next + inner.value === b.length ? inner.next : undefined;
}

/** The optional id (varint field 1) at `at`: its value, 0 when left out, and where the next field starts. */
function optionalId(b: Uint8Array, at: number): { value: number; next: number } | undefined {
  return b[at] === tag(1, 0) ? readVarint(b, at + 1) : { value: 0, next: at };
}

function decodeResponse(b: Uint8Array): SessionServerMessage | undefined {
  const body = field2Body(b);
  const idField = body === undefined ? undefined : optionalId(b, body);
  if (!idField) return undefined;
  const { value: id, next: at } = idField;
  if (b[at] !== tag(2, LEN)) return undefined;
  const n = readVarint(b, at + 1);
  if (!n || n.next + n.value !== b.length) return undefined;
  const view = Buffer.from(b.buffer, b.byteOffset + n.next, n.value);
  return { response: { id, resultJson: view, error: undefined } };
}

/**
 * `SessionClientMessage.decode(bytes)`, with a request read in place: its params are a view into `bytes`
 * (the generated decoder makes a reader, copies the params into a new Buffer and reads the id as a Long;
 * this runs for every call into the core). Only the layout requestFrame writes (fields 1–4 in order, each
 * at most once, an ASCII method, values in range) is read here; anything else goes to the generated code,
 * so the result is always what it gives (session-wire.test.ts).
 */
export function decodeClientMessage(bytes: Uint8Array): SessionClientMessage {
  return decodeRequest(bytes) ?? SessionClientMessage.decode(bytes);
}

const MAX_INT32 = 2 ** 31 - 1;
const NO_PARAMS = Buffer.alloc(0);

function decodeRequest(b: Uint8Array): SessionClientMessage | undefined {
  const body = field2Body(b);
  const idField = body === undefined ? undefined : optionalId(b, body);
  if (!idField) return undefined;
  const id = idField.value;
  let at = idField.next;
  let method = '';
  let paramsJson: Buffer = NO_PARAMS;
  let timeoutMs = 0;
  if (b[at] === tag(2, LEN)) {
    const n = readVarint(b, at + 1);
    if (!n || n.next + n.value > b.length) return undefined;
    // Method names are ASCII; other bytes are left to the generated decoder's UTF-8 reading.
    for (let i = n.next; i < n.next + n.value; i++) if ((b[i] as number) >= 0x80) return undefined;
    method = Buffer.from(b.buffer, b.byteOffset + n.next, n.value).toString('latin1');
    at = n.next + n.value;
  }
  if (b[at] === tag(3, LEN)) {
    const n = readVarint(b, at + 1);
    if (!n || n.next + n.value > b.length) return undefined;
    paramsJson = Buffer.from(b.buffer, b.byteOffset + n.next, n.value);
    at = n.next + n.value;
  }
  if (b[at] === tag(4, 0)) {
    const v = readVarint(b, at + 1);
    // A negative int32 takes ten bytes: the generated decoder reads those.
    if (!v || v.value > MAX_INT32) return undefined;
    timeoutMs = v.value;
    at = v.next;
  }
  if (at !== b.length) return undefined;
  return {
    hello: undefined,
    request: { id, method, paramsJson, timeoutMs },
    cancel: undefined,
    response: undefined,
    notification: undefined,
  };
}

/** A varint of up to 53 bits at `at`: its value and the index after it; undefined past the end or the range. */
function readVarint(b: Uint8Array, at: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = at; i < b.length && i < at + 8; i++) {
    const byte = b[i] as number;
    value += (byte & 127) * scale;
    if (byte < 128) return Number.isSafeInteger(value) ? { value, next: i + 1 } : undefined;
    scale *= 128;
  }
  return undefined;
}

/**
 * Frame of `SessionClientMessage{request: {id, method, params_json, timeout_ms}}` (field 2 →
 * SessionRequest fields 1–4). `timeoutMs` must be a non-negative int32 (0 = none, left out as proto3 does).
 */
export function requestFrame(id: number, method: string, paramsJson: string, timeoutMs: number): Buffer {
  const m = Buffer.byteLength(method, 'utf8');
  const n = Buffer.byteLength(paramsJson, 'utf8');
  const idBytes = id === 0 ? 0 : 1 + varintSize(id);
  const methodBytes = m === 0 ? 0 : 1 + varintSize(m) + m;
  const paramsBytes = n === 0 ? 0 : 1 + varintSize(n) + n;
  const timeoutBytes = timeoutMs === 0 ? 0 : 1 + varintSize(timeoutMs);
  const inner = idBytes + methodBytes + paramsBytes + timeoutBytes;
  const out = header(1 + varintSize(inner) + inner);
  let at = 4;
  out[at++] = tag(2, LEN);
  at = writeVarint(out, at, inner);
  if (idBytes > 0) {
    out[at++] = tag(1, 0);
    at = writeVarint(out, at, id);
  }
  if (methodBytes > 0) {
    out[at++] = tag(2, LEN);
    at = writeVarint(out, at, m);
    at += out.write(method, at, 'utf8');
  }
  if (paramsBytes > 0) {
    out[at++] = tag(3, LEN);
    at = writeVarint(out, at, n);
    at += out.write(paramsJson, at, 'utf8');
  }
  if (timeoutBytes > 0) {
    out[at++] = tag(4, 0);
    writeVarint(out, at, timeoutMs);
  }
  return out;
}
