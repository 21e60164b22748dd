import type { ServerWritableStream } from '@grpc/grpc-js';
import { RequestAdmission } from './request-admission.js';

/** Protobuf framing around a message's payloads: small next to them, counted as this. */
const MESSAGE_OVERHEAD = 32;

export interface OutputBudgetEvents {
  /** A connection's calls are held back (`queued` wait); said once until its queue empties again. */
  callsHeld?(queued: number): void;
  /** A connection's subscription streams wait for their reader; said once per connection. */
  streamsHeld?(): void;
}

/** What one HTTP/2 connection's server streams (CallTool, watches, logs) have written and the peer has not taken. */
export class ConnectionOutput {
  unread = 0;
  /** Calls start as the Session's requests do: only while the unread output plus what running calls are expected to answer fits. */
  readonly admission: RequestAdmission;
  private seq = 0;
  private callsHeld = false;
  private streamsHeld = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly budget: number,
    private readonly events: OutputBudgetEvents,
  ) {
    // A gRPC call's request is decoded already; nothing to stop reading (a queue only holds the call's start).
    this.admission = new RequestAdmission(budget, { unread: () => this.unread, holdReading: () => {} });
  }

  nextId(): number {
    return ++this.seq;
  }

  /** After a call was submitted: says when calls start to wait, once until the queue empties again. */
  noteQueue(): void {
    const queued = this.admission.counts.queued;
    if (queued === 0) this.callsHeld = false;
    else if (!this.callsHeld) {
      this.callsHeld = true;
      this.events.callsHeld?.(queued);
    }
  }

  /** A subscription stream waits for its reader: said once per connection, however often. */
  noteStreamHeld(): void {
    if (this.streamsHeld) return;
    this.streamsHeld = true;
    this.events.streamsHeld?.();
  }

  /** Whether a stream with `own` unread bytes may write now: neither it nor its connection is over the budget. */
  fits(own: number): boolean {
    return own <= this.budget && this.unread <= this.budget;
  }

  /** `bytes` of the connection's output left the core (taken by HTTP/2) or were given up with their stream. */
  taken(bytes: number): void {
    this.unread -= bytes;
    this.admission.pump();
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const w of waiting) w();
  }

  /** Resolves the next time output is taken off the connection, or when `signal` aborts. */
  nextTaken(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      if (signal.aborted) return resolve();
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * One server stream's writes, weighed against its own and its connection's budget. grpc-js counts
 * messages, not bytes: each write is weighed here and taken off once grpc-js has handed it to HTTP/2.
 * grpc-js never calls a write back once its call is cancelled, so a stream that ends gives back what it
 * still counted — else a cancelled stream would hold its connection over the budget for good.
 */
export class WeighedStream {
  protected unread = 0;
  private released = false;

  constructor(
    protected readonly call: ServerWritableStream<unknown, unknown>,
    protected readonly conn: ConnectionOutput,
  ) {
    const release = () => this.release();
    call.once('cancelled', release);
    call.once('close', release);
  }

  /** Whether this stream or its connection is over the budget now. */
  get over(): boolean {
    return !this.conn.fits(this.unread);
  }

  protected write(msg: unknown, bytes: number): void {
    if (this.released) return;
    const size = MESSAGE_OVERHEAD + bytes;
    this.unread += size;
    this.conn.unread += size;
    this.call.write(msg, () => {
      if (this.released) return;
      this.unread -= size;
      this.conn.taken(size);
    });
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    const left = this.unread;
    this.unread = 0;
    this.conn.taken(left);
  }
}

/** Roughly the bytes a message puts on the wire: its byte and string fields, a few levels of nesting deep. */
export function approxBytes(msg: unknown, depth = 0): number {
  if (msg instanceof Uint8Array) return msg.byteLength;
  if (typeof msg === 'string') return msg.length;
  if (depth > 3 || !msg || typeof msg !== 'object') return 0;
  let n = 0;
  for (const v of Object.values(msg as Record<string, unknown>)) n += approxBytes(v, depth + 1);
  return n;
}

/**
 * The HTTP/2 session a grpc-js server call runs on (grpc-js keeps it on its innermost call object; not
 * public API, hence the search). Calls whose session cannot be found count as a connection each.
 */
export function connectionOf(call: ServerWritableStream<unknown, unknown>): object {
  let c = (call as unknown as { call?: unknown }).call;
  for (let depth = 0; depth < 8 && c && typeof c === 'object'; depth++) {
    const o = c as { stream?: { session?: object }; nextCall?: unknown };
    if (o.stream?.session) return o.stream.session;
    c = o.nextCall;
  }
  return call;
}
