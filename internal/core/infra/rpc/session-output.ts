import type { JsonObject } from '../../../shared/json.js';
import { encodeJson } from '../../../contract/session/json-bytes.js';
import { OutboundGate, type GatedStream } from './outbound-gate.js';
import { ReadingValve } from './reading-valve.js';
import { responseFrameParts } from '../../../contract/session/session-wire.js';
import type { SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';

/** What SessionOutput writes to: a Session stream of either transport, or one channel of a /2 connection. */
export interface SessionSink extends GatedStream {
  /** 'drain': the peer took what was written (queued requests may start). */
  on(event: 'drain', listener: () => void): unknown;
  write(msg: SessionServerMessage): unknown;
  /** /1 framed streams: writes a frame encoded by session-wire.ts (its parts in order, in one write). */
  writeFrame?(frame: Buffer | readonly Buffer[]): unknown;
}

export type SessionLog = (level: 'info' | 'warning', event: string, fields: Record<string, unknown>) => void;

/**
 * Everything the core sends on one Session, through its OutboundGate: answers always go out,
 * notifications and progress are dropped (and counted) while the peer is too far behind. It also keeps
 * the highest unread byte count the session reached (its status and metrics show it).
 */
export class SessionOutput {
  private closed = false;
  private readonly gate: OutboundGate;
  private readonly valve: ReadingValve;
  private peakUnread = 0;

  constructor(
    private readonly stream: SessionSink,
    maxBytes: number,
    who: () => Record<string, unknown>,
    log?: SessionLog,
  ) {
    const valve = (this.valve = new ReadingValve(stream));
    // The gate pauses reading through the valve, so its resume cannot undo a pause the request queue holds.
    const gated: GatedStream = {
      get writableLength() {
        return stream.writableLength;
      },
      pause: () => valve.hold('output'),
      resume: () => valve.release('output'),
      once: (event, listener) => stream.once(event, listener),
    };
    this.gate = new OutboundGate(gated, maxBytes, {
      paused: (buffered) =>
        log?.('warning', 'session output over its limit; reading its requests paused until it catches up', { ...who(), buffered }),
      resumed: (dropped) =>
        log?.(dropped > 0 ? 'warning' : 'info', 'session caught up; reading resumed', { ...who(), droppedNotifications: dropped }),
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes written and not yet taken by the peer. */
  unread(): number {
    return this.stream.writableLength ?? 0;
  }

  /** The most bytes this session ever had unread. */
  get peak(): number {
    return this.peakUnread;
  }

  /** Pauses (true) or restarts (false) reading the peer while its queue of requests not yet started is full. */
  holdReading(hold: boolean): void {
    if (hold) this.valve.hold('queue');
    else this.valve.release('queue');
  }

  /** Runs `cb` each time the peer has taken what was written (the stream's 'drain'). */
  onDrain(cb: () => void): void {
    this.stream.on('drain', cb);
  }

  send(msg: SessionServerMessage, admitted = false): void {
    if (this.closed || (!admitted && !this.gate.admit(msg.notification !== undefined || msg.progress !== undefined))) return;
    this.stream.write(msg);
    this.wrote();
  }

  /**
   * A successful answer whose result is JSON bytes already (a server's, as it wrote them): where the
   * stream takes frames, a large result is written after its frame header as the very buffer it came in
   * (responseFrameParts); on gRPC it is the message's bytes field, encoded once (serverMessageBytes).
   */
  sendResultJson(id: number, bytes: Uint8Array): void {
    if (this.closed) return;
    const resultJson = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (!this.stream.writeFrame) return this.send({ response: { id, resultJson } });
    this.stream.writeFrame(responseFrameParts(id, resultJson));
    this.wrote();
  }

  private wrote(): void {
    this.peakUnread = Math.max(this.peakUnread, this.unread());
    this.gate.wrote();
  }

  /** Checked before encoding: a notification that would be dropped costs no JSON. */
  notify(method: string, params: JsonObject): void {
    if (!this.closed && this.gate.admit(true)) this.send({ notification: { method, paramsJson: encodeJson(params) } }, true);
  }

  close(): void {
    this.closed = true;
  }
}
