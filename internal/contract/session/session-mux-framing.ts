import { MAX_FRAME_BYTES } from './session-framing.js';

/**
 * The multiplexed framed Session (docs/decisions.md, "one core connection per gateway process"): one connection carries many Sessions, each on its own
 * channel. Frames are those of MCPD-SESSION/1 (a 4-byte big-endian length, then the body) whose body
 * starts with a 4-byte big-endian channel id and a 1-byte kind:
 *   OPEN    (client → core, empty body): channel ids must increase on a connection and never be 0.
 *   MESSAGE (both ways): a SessionClientMessage / SessionServerMessage, exactly as on /1.
 *   CLOSE   (both ways, body = UTF-8 reason): the channel is over; the core releases its session. The
 *           client answers a CLOSE from the core with a CLOSE of its own; CLOSE on channel 0 from the
 *           core says why the whole connection is being dropped.
 */
export const MUX_PREFACE = Buffer.from('MCPD-SESSION/2\n', 'latin1');

export const MuxKind = { message: 0, open: 1, close: 2 } as const;
export type MuxKind = (typeof MuxKind)[keyof typeof MuxKind];

export interface MuxFrame {
  channel: number;
  kind: MuxKind;
  payload: Buffer;
}

const HEADER_BYTES = 4;
const CHANNEL_HEADER_BYTES = 5;
export const MAX_CHANNEL_ID = 0xffff_ffff;

/** A peer broke the /2 rules: the connection is dropped with this message. */
export class MuxProtocolError extends Error {}

/** One /2 frame: length, channel, kind, payload. */
export function muxFrame(channel: number, kind: MuxKind, payload: Uint8Array = EMPTY): Buffer {
  const bodyBytes = CHANNEL_HEADER_BYTES + payload.length;
  if (bodyBytes > MAX_FRAME_BYTES)
    throw new Error(`session message of ${payload.length} bytes exceeds the ${MAX_FRAME_BYTES - CHANNEL_HEADER_BYTES}-byte limit`);
  const out = Buffer.allocUnsafe(HEADER_BYTES + bodyBytes);
  out.writeUInt32BE(bodyBytes, 0);
  out.writeUInt32BE(channel, HEADER_BYTES);
  out.writeUInt8(kind, HEADER_BYTES + 4);
  out.set(payload, HEADER_BYTES + CHANNEL_HEADER_BYTES);
  return out;
}

/** Splits a frame body (as FrameReader returns it) into channel, kind and payload. */
export function parseMuxFrame(body: Buffer): MuxFrame {
  if (body.length < CHANNEL_HEADER_BYTES)
    throw new MuxProtocolError(
      `a ${body.length}-byte frame has no channel header (MCPD-SESSION/2 frames start with 4 channel bytes and 1 kind byte)`,
    );
  const channel = body.readUInt32BE(0);
  const kind = body.readUInt8(4);
  if (kind !== MuxKind.message && kind !== MuxKind.open && kind !== MuxKind.close)
    throw new MuxProtocolError(`frame on channel ${channel} has unknown kind ${kind} (0 message, 1 open, 2 close)`);
  return { channel, kind, payload: body.subarray(CHANNEL_HEADER_BYTES) };
}

const EMPTY = new Uint8Array(0);
