/**
 * The framed Session transport: the same SessionClientMessage / SessionServerMessage protobufs as the
 * gRPC `Session` RPC, sent as length-prefixed frames on a plain connection to the control socket.
 * A connection opens with PREFACE; anything else on the socket is gRPC (HTTP/2 opens with "PRI ").
 */
export const SESSION_PREFACE = Buffer.from('MCPD-SESSION/1\n', 'latin1');

/** Same ceiling as the gRPC channel's message limit. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

const HEADER_BYTES = 4;

/** One frame: a 4-byte big-endian length, then the encoded message. */
export function frame(payload: Uint8Array): Buffer {
  if (payload.length > MAX_FRAME_BYTES)
    throw new Error(`session message of ${payload.length} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
  const out = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.set(payload, HEADER_BYTES);
  return out;
}

/** Cuts a byte stream into frames; a partial frame waits for the rest (chunks are joined once, when it is whole). */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Bytes of a frame still incomplete. */
  get pending(): number {
    return this.buffered;
  }

  /** Appends a chunk and returns every frame it completes (views into the chunks where possible). */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Buffer[] = [];
    while (this.buffered >= HEADER_BYTES) {
      const len = this.peekLength();
      if (len > MAX_FRAME_BYTES) throw new Error(`session frame of ${len} bytes exceeds the ${MAX_FRAME_BYTES}-byte limit`);
      if (this.buffered < HEADER_BYTES + len) break;
      const [only] = this.chunks;
      const head = this.chunks.length === 1 && only !== undefined ? only : Buffer.concat(this.chunks, this.buffered);
      frames.push(head.subarray(HEADER_BYTES, HEADER_BYTES + len));
      const rest = head.subarray(HEADER_BYTES + len);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return frames;
  }

  /** Called only with at least HEADER_BYTES buffered, so there is a first chunk. */
  private peekLength(): number {
    let [first] = this.chunks;
    if (first === undefined || first.length < HEADER_BYTES) this.chunks = [(first = Buffer.concat(this.chunks, this.buffered))];
    return first.readUInt32BE(0);
  }
}
