import { MAX_FRAME_BYTES } from './session-framing.js';

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

function header(payload: number): Buffer {
  if (payload > MAX_FRAME_BYTES) throw new Error(`session message of ${payload} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
  const out = Buffer.allocUnsafe(4 + payload);
  out.writeUInt32BE(payload, 0);
  return out;
}

/** Frame of `SessionServerMessage{response: {id, result_json}}` (field 2 → SessionResponse fields 1, 2). */
export function responseFrame(id: number, resultJson: string): Buffer {
  const n = Buffer.byteLength(resultJson, 'utf8');
  // proto3 leaves a zero id out; ids start at 1, but the encoding stays exact either way.
  const idBytes = id === 0 ? 0 : 1 + varintSize(id);
  const inner = idBytes + 1 + varintSize(n) + n;
  const out = header(1 + varintSize(inner) + inner);
  let at = 4;
  out[at++] = tag(2, LEN);
  at = writeVarint(out, at, inner);
  if (id !== 0) {
    out[at++] = tag(1, 0);
    at = writeVarint(out, at, id);
  }
  out[at++] = tag(2, LEN);
  at = writeVarint(out, at, n);
  out.write(resultJson, at, 'utf8');
  return out;
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
