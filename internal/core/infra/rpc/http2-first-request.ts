/**
 * Checks an HTTP/2 connection up to its first complete request before grpc-js gets it. Once the bytes
 * are handed over, the HTTP/2 stack keeps a connection open as long as it waits for the rest of a
 * frame, or ignores frames it does not know — garbage after a valid preface held an fd for minutes.
 * Up to the first request, frames are read here: the first must be the client's SETTINGS (RFC 9113
 * §3.4), then only connection-level frames, then HEADERS (and CONTINUATION) of the first stream.
 *
 * Some clients (grpc-go) wait for the server's SETTINGS before sending a request, so ours is sent here
 * as soon as the client's arrived; the client's ACK of it is taken out of the bytes handed over, and
 * the hand-over waits for that ACK, so the HTTP/2 stack never sees an ACK of SETTINGS it did not send.
 */

/** An empty SETTINGS frame: the server's connection preface (all values default until the stack's own). */
export const SERVER_SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);

const HEADER = 9;
/** SETTINGS_MAX_FRAME_SIZE's initial value: no client may send a larger frame before the server raises it. */
const MAX_FRAME = 16_384;
/** Bytes a connection may send before its first request is complete (a request's headers are far smaller). */
const MAX_BYTES_BEFORE_REQUEST = 256 * 1024;

const DATA = 0;
const HEADERS = 1;
const PRIORITY = 2;
const RST_STREAM = 3;
const SETTINGS = 4;
const PING = 6;
const WINDOW_UPDATE = 8;
const CONTINUATION = 9;
const ACK = 0x1;
const END_HEADERS = 0x4;

export type FirstRequestState =
  | { kind: 'wait' }
  /** Send SERVER_SETTINGS now (once), then keep reading. */
  | { kind: 'settings' }
  /** Hand `bytes` (the preface and everything read, minus the ACK of our SETTINGS) to the HTTP/2 stack. */
  | { kind: 'ready'; bytes: Buffer }
  | { kind: 'bad'; why: string };

/** Frame reader for the bytes after the client preface, up to the first complete request. */
export class FirstRequestReader {
  private pending: Buffer = Buffer.alloc(0);
  private readonly kept: Buffer[];
  private total = 0;
  private sawSettings = false;
  private acked = false;
  private headersOpen: number | undefined;
  private requested = false;

  /** `preface`: the client preface as read (kept in front of the bytes handed over). */
  constructor(preface: Buffer) {
    this.kept = [preface];
  }

  /** True while part of a frame is buffered: the stall timeout applies. */
  get midFrame(): boolean {
    return this.pending.length > 0;
  }

  feed(chunk: Buffer): FirstRequestState {
    this.total += chunk.length;
    if (this.total > MAX_BYTES_BEFORE_REQUEST) return bad(`more than ${MAX_BYTES_BEFORE_REQUEST} bytes before the first request`);
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let sendSettings = false;
    while (this.pending.length >= HEADER) {
      const length = this.pending.readUIntBE(0, 3);
      if (length > MAX_FRAME) return bad(`a frame of ${length} bytes (at most ${MAX_FRAME} before the server's SETTINGS allow more)`);
      if (this.pending.length < HEADER + length) break;
      const frame = this.pending.subarray(0, HEADER + length);
      this.pending = this.pending.subarray(HEADER + length);
      const verdict = this.frame(frame, length);
      if (verdict === 'drop') continue;
      if (typeof verdict === 'object') return verdict;
      if (verdict === 'settings') sendSettings = true;
      this.kept.push(frame);
    }
    if (this.requested && this.acked) return { kind: 'ready', bytes: Buffer.concat([...this.kept, this.pending]) };
    return sendSettings ? { kind: 'settings' } : { kind: 'wait' };
  }

  /** 'keep' the frame, 'drop' it (the ACK of our SETTINGS), 'settings' (keep, and send ours), or a refusal. */
  private frame(frame: Buffer, length: number): 'keep' | 'drop' | 'settings' | FirstRequestState {
    const type = frame.readUInt8(3);
    const flags = frame.readUInt8(4);
    const stream = frame.readUInt32BE(5) & 0x7fffffff;
    if (!this.sawSettings) {
      if (type !== SETTINGS || flags & ACK || stream !== 0 || length % 6 !== 0) return bad('the first frame is not SETTINGS');
      this.sawSettings = true;
      return 'settings';
    }
    if (this.headersOpen !== undefined) {
      if (type !== CONTINUATION || stream !== this.headersOpen) return bad('HEADERS not followed by its CONTINUATION');
      if (flags & END_HEADERS) this.finishHeaders();
      return 'keep';
    }
    switch (type) {
      case SETTINGS:
        if (stream !== 0) return bad('SETTINGS on a stream');
        if (flags & ACK) {
          if (this.acked || length !== 0) return bad('an unexpected SETTINGS ACK');
          this.acked = true;
          return 'drop';
        }
        return length % 6 === 0 ? 'keep' : bad('a malformed SETTINGS frame');
      case WINDOW_UPDATE:
        return length === 4 ? 'keep' : bad('a malformed WINDOW_UPDATE frame');
      case PING:
        return length === 8 && stream === 0 ? 'keep' : bad('a malformed PING frame');
      case PRIORITY:
        return length === 5 && stream !== 0 ? 'keep' : bad('a malformed PRIORITY frame');
      case HEADERS:
        if (stream === 0 || stream % 2 === 0) return bad('HEADERS on a stream a client may not open');
        if (flags & END_HEADERS) this.finishHeaders();
        else this.headersOpen = stream;
        return 'keep';
      case DATA:
      case RST_STREAM:
        // The request's body (or its cancel) may follow its headers before our SETTINGS is acknowledged.
        return this.requested ? 'keep' : bad('a stream frame before any request');
      default:
        return bad(`frame type ${type} before the first request`);
    }
  }

  private finishHeaders(): void {
    this.headersOpen = undefined;
    this.requested = true;
  }
}

function bad(why: string): FirstRequestState {
  return { kind: 'bad', why };
}
