import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { type TurnWrites, WriteBatcher } from '../../shared/jsonrpc/turn-writes.js';
import { FrameReader, frame } from './session-framing.js';

export interface MessageCodec<In, Out> {
  encode(message: Out): Uint8Array;
  decode(bytes: Uint8Array): In;
}

/**
 * A Session stream over a plain socket, with the events and methods of a grpc-js duplex stream that the
 * session code uses: 'data' (one decoded message), 'end', 'error', 'close'; write, end, cancel.
 */
export class FramedSessionStream<In, Out> extends EventEmitter {
  private readonly reader = new FrameReader();
  /** Frames read but not yet handed on while paused (at most one socket chunk's worth). */
  private held: Buffer[] = [];
  private paused = false;

  private stallTimer?: NodeJS.Timeout;
  private readonly writes: TurnWrites;

  /**
   * `stallTimeoutMs`: a partial frame that gets no further byte for this long ends the connection, so a
   * peer cannot hold a buffer and a connection forever by stopping mid-frame.
   */
  constructor(
    private readonly socket: Socket,
    private readonly codec: MessageCodec<In, Out>,
    private readonly stallTimeoutMs?: number,
    private readonly batcher = new WriteBatcher(),
  ) {
    super();
    this.writes = batcher.writer(socket);
    socket.once('close', () => clearTimeout(this.stallTimer));
    socket.on('data', (chunk: Buffer) => this.onChunk(chunk));
    socket.on('end', () => this.emit('end'));
    socket.on('error', (err) => this.emit('error', err));
    socket.on('close', () => this.emit('close'));
    socket.on('drain', () => this.emit('drain'));
  }

  /** Bytes written but not yet taken by the peer. */
  get writableLength(): number {
    return this.socket.writableLength;
  }

  /** Stops handing on messages (the rest of a chunk already read included) and reading the socket. */
  pause(): void {
    this.paused = true;
    this.socket.pause();
  }

  resume(): void {
    this.paused = false;
    while (!this.paused && this.held.length > 0) this.deliver(this.held.shift() as Buffer);
    if (!this.paused) this.socket.resume();
  }

  /** Feeds bytes that arrived before this stream took the socket over. */
  receive(chunk: Buffer): void {
    if (chunk.length > 0) this.onChunk(chunk);
  }

  write(message: Out): boolean {
    if (this.socket.destroyed || !this.socket.writable) return false;
    return this.writes.write(frame(this.codec.encode(message)));
  }

  /** Writes a frame already encoded (session-wire.ts), header included: one buffer, or its parts in order. */
  writeFrame(bytes: Buffer | readonly Buffer[]): boolean {
    if (this.socket.destroyed || !this.socket.writable) return false;
    return Buffer.isBuffer(bytes) ? this.writes.write(bytes) : this.writes.writeParts(bytes);
  }

  /** No more messages from this side; the peer may still answer. */
  end(): void {
    this.socket.end();
  }

  /** Drops the connection at once. */
  cancel(): void {
    this.socket.destroy();
  }

  private onChunk(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      return this.fail(err as Error);
    }
    this.watchStall();
    if (frames.length > 1) this.batcher.holdWritesOfThisRead();
    for (const f of frames) {
      if (this.paused) this.held.push(f);
      else this.deliver(f);
    }
  }

  private watchStall(): void {
    clearTimeout(this.stallTimer);
    if (this.stallTimeoutMs === undefined || this.reader.pending === 0) return;
    const ms = this.stallTimeoutMs;
    this.stallTimer = setTimeout(
      () => this.fail(new Error(`a partial session frame (${this.reader.pending} bytes) got no further byte for ${ms} ms`)),
      ms,
    );
    this.stallTimer.unref();
  }

  private deliver(f: Buffer): void {
    let message: In;
    try {
      message = this.codec.decode(f);
    } catch (err) {
      return this.fail(new Error(`undecodable session message: ${(err as Error).message}`));
    }
    this.emit('data', message);
  }

  private fail(err: Error): void {
    this.emit('error', err);
    this.socket.destroy();
  }
}
