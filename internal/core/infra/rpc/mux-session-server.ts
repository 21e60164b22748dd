import type { Socket } from 'node:net';

import { cappedTimeout } from '../../../shared/timer-limit.js';
import { FrameReader } from '../../../contract/session/session-framing.js';
import { MuxKind, MuxProtocolError, muxFrame, parseMuxFrame, type MuxFrame } from '../../../contract/session/session-mux-framing.js';
import { MuxServerChannel, type ChannelCarrier } from './mux-server-channel.js';
import type { SessionServerStream } from './session-server.js';
import type { SessionClientMessage, SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';
import { decodeClientMessage, encodeServerMessage } from '../../../contract/session/session-wire.js';

export interface MuxServeOptions {
  /** Serves one channel's Session (hello, requests, …), as a /1 connection's stream is served. */
  serve(stream: SessionServerStream): void;
  /** Channels one connection may have open at once (runtime.yaml sessionChannelsPerConnection). */
  maxChannels: number;
  /** Per-session unread output bound (sessionOutboundBytes); the connection's bound is a multiple of it. */
  maxOutboundBytes: number;
  /** A partial frame with no further byte for this long ends the connection. */
  frameStallMs?: number;
  /** A connection with no channel open for this long is closed (the hello timeout, per connection). */
  idleMs: number;
  log?: (level: 'info' | 'warning', event: string, fields: Record<string, unknown>) => void;
}

/**
 * Bytes the whole connection may hold unwritten, in sessions' worth: past it every channel counts as
 * behind (drops notifications, pauses), since then the gateway process itself has stopped reading.
 */
const CONNECTION_OUTBOUND_SESSIONS = 4;
/** After our CLOSE frame on channel 0, how long the peer gets to read it before the socket is destroyed. */
const LAST_WORDS_MS = 1000;

/**
 * The core's end of a MCPD-SESSION/2 connection: cuts frames, routes them to channels, enforces the
 * /2 rules (see session-mux-framing.ts). Any breach drops the whole connection with a CLOSE on channel 0
 * saying what was wrong; every session it carried is released as if its own connection had closed.
 */
export class MuxServerConnection implements ChannelCarrier {
  private readonly reader = new FrameReader();
  private readonly channels = new Map<number, MuxServerChannel>();
  /** Highest channel id opened so far: ids must increase, so a stale frame can never reach a newer channel. */
  private highest = 0;
  private open = 0;
  private dead = false;
  private stallTimer?: NodeJS.Timeout;
  private idleTimer?: NodeJS.Timeout;

  constructor(
    private readonly socket: Socket,
    private readonly opts: MuxServeOptions,
  ) {
    socket.on('data', (chunk: Buffer) => this.onChunk(chunk));
    // 'close' follows an error; a peer reset is not the core's problem.
    socket.on('error', () => {});
    socket.on('end', () => socket.end());
    socket.once('close', () => this.gone());
    socket.on('drain', () => {
      for (const c of this.channels.values()) c.emit('drain');
    });
    this.watchIdle();
  }

  /** Feeds bytes that arrived with the preface. */
  receive(chunk: Buffer): void {
    if (chunk.length > 0) this.onChunk(chunk);
  }

  sendMessage(channel: number, msg: SessionServerMessage, flushed: () => void): number {
    const bytes = muxFrame(channel, MuxKind.message, encodeServerMessage(msg));
    if (this.socket.writable) this.socket.write(bytes, () => flushed());
    else queueMicrotask(flushed);
    return bytes.length;
  }

  closeByCore(channel: MuxServerChannel, reason: string): void {
    this.open--;
    if (this.socket.writable) this.socket.write(muxFrame(channel.id, MuxKind.close, Buffer.from(reason, 'utf8')));
    this.watchIdle();
  }

  connectionBacklog(): number {
    const n = this.socket.writableLength;
    return n > this.opts.maxOutboundBytes * CONNECTION_OUTBOUND_SESSIONS ? n : 0;
  }

  private onChunk(chunk: Buffer): void {
    if (this.dead) return;
    try {
      for (const body of this.reader.push(chunk)) {
        this.onFrame(parseMuxFrame(body));
        if (this.dead) return;
      }
    } catch (e) {
      return this.fail((e as Error).message);
    }
    this.watchStall();
  }

  private onFrame(f: MuxFrame): void {
    if (f.channel === 0) throw new MuxProtocolError('channel 0 is reserved for the connection; open channels from 1 up');
    if (f.kind === MuxKind.open) return this.onOpen(f.channel);
    const c = this.channels.get(f.channel);
    if (!c) {
      throw new MuxProtocolError(
        f.channel > this.highest
          ? `frame for channel ${f.channel}, which was never opened (send OPEN first)`
          : `frame for channel ${f.channel}, which the client already closed`,
      );
    }
    if (f.kind === MuxKind.close) {
      this.channels.delete(f.channel);
      if (c.isOpen) {
        this.open--;
        c.closedByClient();
      } else c.acknowledged();
      return this.watchIdle();
    }
    // Sent before our CLOSE reached the client: dropped, the channel's session is over.
    if (!c.isOpen) return;
    let msg: SessionClientMessage;
    try {
      msg = decodeClientMessage(f.payload);
    } catch (e) {
      throw new MuxProtocolError(`undecodable session message on channel ${f.channel}: ${(e as Error).message}`);
    }
    c.receive(msg, f.payload.length);
  }

  private onOpen(id: number): void {
    if (id <= this.highest)
      throw new MuxProtocolError(`OPEN of channel ${id} after channel ${this.highest}: channel ids must increase on a connection`);
    this.highest = id;
    // Refused channels wait for the client's CLOSE too; a client that never sends it must not grow the map.
    if (this.channels.size >= this.opts.maxChannels * 2)
      throw new MuxProtocolError(`${this.channels.size} channels open or closed without the client's CLOSE; answer every CLOSE`);
    const channel = new MuxServerChannel(id, this, this.opts.maxOutboundBytes);
    this.channels.set(id, channel);
    this.open++;
    clearTimeout(this.idleTimer);
    if (this.open > this.opts.maxChannels) {
      this.opts.log?.('warning', 'session channel refused: connection at its channel cap', { channel: id, max: this.opts.maxChannels });
      channel.cancel(
        `this connection already carries ${this.opts.maxChannels} sessions (runtime.yaml sessionChannelsPerConnection); close one or raise the cap`,
      );
      return;
    }
    this.opts.serve(channel);
  }

  private watchStall(): void {
    clearTimeout(this.stallTimer);
    const ms = this.opts.frameStallMs;
    if (ms === undefined || this.reader.pending === 0) return;
    this.stallTimer = cappedTimeout(
      () => this.fail(`a partial session frame (${this.reader.pending} bytes) got no further byte for ${ms} ms`),
      ms,
    );
    this.stallTimer.unref();
  }

  private watchIdle(): void {
    clearTimeout(this.idleTimer);
    if (this.open > 0 || this.dead) return;
    const ms = this.opts.idleMs;
    this.idleTimer = cappedTimeout(() => this.fail(`no session channel open for ${ms} ms`, 'info'), ms);
    this.idleTimer.unref();
  }

  /** Says why on channel 0, releases every session at once, and drops the socket. */
  private fail(reason: string, level: 'info' | 'warning' = 'warning'): void {
    if (this.dead) return;
    this.dead = true;
    this.opts.log?.(level, 'session connection closed', { reason, channels: this.open });
    this.release();
    if (this.socket.writable) this.socket.end(muxFrame(0, MuxKind.close, Buffer.from(reason, 'utf8')));
    cappedTimeout(() => this.socket.destroy(), LAST_WORDS_MS).unref();
  }

  private gone(): void {
    this.dead = true;
    this.release();
  }

  private release(): void {
    clearTimeout(this.stallTimer);
    clearTimeout(this.idleTimer);
    for (const c of this.channels.values()) c.connectionGone();
    this.channels.clear();
    this.open = 0;
  }
}
