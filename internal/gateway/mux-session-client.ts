import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';

import { FrameReader } from '../contract/session/session-framing.js';
import { MAX_CHANNEL_ID, MUX_PREFACE, MuxKind, muxFrame, parseMuxFrame, type MuxFrame } from '../contract/session/session-mux-framing.js';
import type { SessionClientStream } from '../contract/session/session-client.js';
import { SessionClientMessage, type SessionServerMessage } from '../contract/gen/mcpd/control/v1/session.js';
import { decodeServerMessage } from '../contract/session/session-wire.js';

/**
 * The gateway's end of a MCPD-SESSION/2 connection: one socket to the core carrying one channel per
 * Session. It reads the socket continuously and hands each message to its channel at once, so a slow
 * MCP client never holds up the others (its bytes are its own HTTP stream's concern; decisions.md,
 * "one core connection per gateway process").
 */
export class MuxConnection {
  private readonly reader = new FrameReader();
  private readonly channels = new Map<number, MuxClientChannel>();
  private lastId = 0;
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onChunk(chunk));
    socket.on('error', (e) => this.drop(e));
    socket.on('end', () => socket.end());
    socket.once('close', () => this.drop(new Error('the core closed the connection')));
  }

  /** Connects and sends the preface; rejects with the socket's error (ENOENT, ECONNREFUSED, …). */
  static connect(socketPath: string): Promise<MuxConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      socket.setNoDelay(true);
      const onError = (e: Error) => reject(e);
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        socket.write(MUX_PREFACE);
        resolve(new MuxConnection(socket));
      });
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** A new channel (OPEN is sent now); its Session starts with the caller's hello, as on /1. */
  open(): MuxClientChannel {
    if (this.closed) throw new Error('the connection to the core is closed');
    if (this.lastId >= MAX_CHANNEL_ID) throw new Error('this connection used up its channel ids; open a new one');
    const channel = new MuxClientChannel(++this.lastId, this);
    this.channels.set(channel.id, channel);
    this.socket.write(muxFrame(channel.id, MuxKind.open));
    return channel;
  }

  /** Closes the socket; every channel ends. */
  close(): void {
    this.socket.destroy();
  }

  /** @internal */
  sendMessage(id: number, msg: SessionClientMessage): boolean {
    if (this.closed) return false;
    return this.socket.write(muxFrame(id, MuxKind.message, SessionClientMessage.encode(msg).finish()));
  }

  /** @internal the channel ended on our side: the core releases its session on CLOSE. */
  sendClose(id: number): void {
    this.channels.delete(id);
    if (!this.closed) this.socket.write(muxFrame(id, MuxKind.close));
  }

  private onChunk(chunk: Buffer): void {
    try {
      for (const body of this.reader.push(chunk)) this.onFrame(parseMuxFrame(body));
    } catch (e) {
      this.drop(new Error(`bad frame from the core: ${(e as Error).message}`));
      this.socket.destroy();
    }
  }

  private onFrame(f: MuxFrame): void {
    if (f.channel === 0) {
      if (f.kind === MuxKind.close) this.drop(new Error(f.payload.toString('utf8') || 'the core closed the connection'));
      return;
    }
    // A frame for a channel we closed was on its way before our CLOSE arrived: nothing waits for it.
    const c = this.channels.get(f.channel);
    if (!c) return;
    if (f.kind === MuxKind.close) {
      this.sendClose(f.channel);
      c.closedByCore(f.payload.toString('utf8'));
    } else if (f.kind === MuxKind.message) {
      c.receive(decodeServerMessage(f.payload));
    }
  }

  private drop(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    const channels = [...this.channels.values()];
    this.channels.clear();
    for (const c of channels) c.connectionLost(err);
  }
}

/** One Session's stream on a MuxConnection: what SessionClient reads and writes, as on a /1 connection. */
export class MuxClientChannel extends EventEmitter implements SessionClientStream {
  private done = false;

  constructor(
    readonly id: number,
    private readonly conn: MuxConnection,
  ) {
    super();
  }

  write(msg: SessionClientMessage): boolean {
    if (this.done) return false;
    return this.conn.sendMessage(this.id, msg);
  }

  /** Ends this Session: the core releases everything it held for it. */
  end(): void {
    this.finish();
  }

  cancel(): void {
    this.finish();
  }

  /** @internal */
  receive(msg: SessionServerMessage): void {
    if (!this.done) this.emit('data', msg);
  }

  /** @internal the core ended the channel; a reason means it refused or dropped the session. */
  closedByCore(reason: string): void {
    if (this.done) return;
    this.done = true;
    if (reason) this.emitError(new Error(reason));
    else this.emit('end');
    this.emit('close');
  }

  /** @internal */
  connectionLost(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.emitError(err);
    this.emit('close');
  }

  /** An 'error' nobody listens to would throw; 'close' still tells them. */
  private emitError(err: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', err);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.conn.sendClose(this.id);
    this.emit('close');
  }
}
