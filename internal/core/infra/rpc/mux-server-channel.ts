import { EventEmitter } from 'node:events';
import type { SessionServerStream } from './session-server.js';
import type { SessionClientMessage, SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';

/** What a channel needs of the connection that carries it. */
export interface ChannelCarrier {
  /** Writes one MESSAGE frame; `flushed` runs once the kernel took it. Returns the frame's size. */
  sendMessage(channel: number, msg: SessionServerMessage, flushed: () => void): number;
  /** Sends CLOSE for a channel the core ends; the connection waits for the client's CLOSE in answer. */
  closeByCore(channel: MuxServerChannel, reason: string): void;
  /** Bytes the whole connection holds unwritten, when that is over the connection's bound (else 0). */
  connectionBacklog(): number;
}

/**
 * The core's end of one Session channel on a MCPD-SESSION/2 connection: the SessionServerStream that
 * ServedSession uses, with its own outbound accounting so one session's unread output pauses that
 * session only (the other channels keep flowing). While paused, the channel holds what the client sends
 * it, up to `maxHeldBytes`; beyond that the channel is closed, never the connection.
 */
export class MuxServerChannel extends EventEmitter implements SessionServerStream {
  private state: 'open' | 'closing' | 'closed' = 'open';
  /** Bytes of this channel written to the socket and not yet taken by the kernel. */
  private unflushed = 0;
  private paused = false;
  private held: { msg: SessionClientMessage; bytes: number }[] = [];
  private heldBytes = 0;

  constructor(
    readonly id: number,
    private readonly carrier: ChannelCarrier,
    private readonly maxHeldBytes: number,
  ) {
    super();
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** This channel's own unwritten bytes, or the connection's when the whole peer has stopped reading. */
  get writableLength(): number {
    return Math.max(this.unflushed, this.carrier.connectionBacklog());
  }

  write(msg: SessionServerMessage): boolean {
    if (this.state !== 'open') return false;
    const size = this.carrier.sendMessage(this.id, msg, () => {
      this.unflushed -= size;
      if (this.unflushed === 0) this.emit('drain');
    });
    this.unflushed += size;
    return true;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    while (!this.paused && this.held.length > 0 && this.state === 'open') {
      const next = this.held.shift() as { msg: SessionClientMessage; bytes: number };
      this.heldBytes -= next.bytes;
      this.emit('data', next.msg);
    }
  }

  /** A MESSAGE from the client. */
  receive(msg: SessionClientMessage, bytes: number): void {
    if (this.state !== 'open') return;
    if (!this.paused) {
      this.emit('data', msg);
      return;
    }
    this.held.push({ msg, bytes });
    this.heldBytes += bytes;
    if (this.heldBytes > this.maxHeldBytes)
      this.cancel(`the session sent over ${this.maxHeldBytes} bytes while not reading its answers (sessionOutboundBytes)`);
  }

  /** The client ended the session (CLOSE): its requests stop, everything it held is released. */
  closedByClient(): void {
    if (this.state !== 'open') return;
    this.state = 'closed';
    this.release();
    this.emit('end');
    this.emit('close');
  }

  /** The connection is gone. */
  connectionGone(): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.release();
    if (wasOpen) this.emit('close');
  }

  /** The core is done with this session: answers already sent stay sent. */
  end(): void {
    this.closeWith('');
  }

  /** The core drops this session with a reason the client sees. */
  cancel(reason = 'the core ended the session'): void {
    this.closeWith(reason);
  }

  /** The client answered our CLOSE. */
  acknowledged(): void {
    this.state = 'closed';
  }

  private closeWith(reason: string): void {
    if (this.state !== 'open') return;
    this.state = 'closing';
    this.release();
    this.carrier.closeByCore(this, reason);
    this.emit('close');
  }

  private release(): void {
    this.held = [];
    this.heldBytes = 0;
  }
}
