import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { LineSplitter } from '../../shared/line-splitter.js';

/** The longest answer line taken from a host (a bigger one is a broken host: the connection fails). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface BridgeErrorReply {
  code: string;
  message: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

/** A contract error as received over the wire. */
export class BridgeCallError extends Error {
  constructor(readonly error: BridgeErrorReply) {
    super(`${error.code}: ${error.message}`);
    this.name = 'BridgeCallError';
  }
  get code(): string {
    return this.error.code;
  }
}

/**
 * A long-lived client connection to a desktop host (session mode: confirm tokens are bound to it).
 * Requests are multiplexed; answers are matched by id.
 */
export class BridgeClient {
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly lines = new LineSplitter({ maxLineBytes: MAX_ANSWER_BYTES, overLong: 'throw' });
  private closedError: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('close', () => this.failAll(new Error('the desktop host closed the connection')));
    socket.on('error', (e) => this.failAll(e));
  }

  static connect(path: string): Promise<BridgeClient> {
    return new Promise((resolve, reject) => {
      const s = connect(path);
      s.once('connect', () => resolve(new BridgeClient(s)));
      s.once('error', (e) => reject(new Error(`cannot connect to the desktop host at ${path}: ${e.message}`)));
    });
  }

  /** Sends one request; resolves with `result` or rejects with a BridgeCallError. */
  call<T = Record<string, unknown>>(method: string, params: unknown, id: string = randomUUID()): Promise<T> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** Writes a raw line (tests of malformed input); answers with id null go to `onOrphan`. */
  writeRaw(line: string): void {
    this.socket.write(line);
  }

  onOrphan: (msg: unknown) => void = () => undefined;

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private onData(d: Buffer): void {
    try {
      this.lines.push(d);
    } catch (e) {
      this.failAll(new Error(`the desktop host sent ${(e as Error).message}`));
      this.socket.destroy();
      return;
    }
    for (let line = this.lines.next(); line !== null; line = this.lines.next()) {
      const msg = JSON.parse(line) as { id: string | null; result?: unknown; error?: BridgeErrorReply };
      const p = msg.id === null ? undefined : this.pending.get(String(msg.id));
      if (!p) {
        this.onOrphan(msg);
        continue;
      }
      this.pending.delete(String(msg.id));
      if (msg.error) p.reject(new BridgeCallError(msg.error));
      else p.resolve(msg.result);
    }
  }

  private failAll(e: Error): void {
    this.closedError ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
