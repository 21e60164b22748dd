import type { ServerWritableStream } from '@grpc/grpc-js';
import { RequestAdmission } from './request-admission.js';

/** Protobuf framing around a message's payloads: small next to them, counted as this. */
const MESSAGE_OVERHEAD = 32;

/** What one HTTP/2 connection's server-streaming calls (CallTool, …) have written and the peer has not taken. */
class ConnectionOutput {
  unread = 0;
  /** Calls start as the Session's requests do: only while the unread output plus what running calls are expected to answer fits. */
  readonly admission: RequestAdmission;
  private seq = 0;
  heldBack = false;

  constructor(budget: number) {
    // A gRPC call's request is decoded already; nothing to stop reading (a queue only holds the call's start).
    this.admission = new RequestAdmission(budget, { unread: () => this.unread, holdReading: () => {} });
  }

  nextId(): number {
    return ++this.seq;
  }
}

/**
 * The Session's output budget (runtime.yaml sessionOutboundBytes) for the server-streaming calls of the
 * gRPC control plane: per stream, progress is dropped while the stream's own unread output is over it; per
 * connection, a call starts only while the connection's unread output plus what its running calls are
 * expected to answer fits (RequestAdmission), so a client that pipelines calls and never reads holds the
 * core to about the budget instead of every answer. grpc-js streams count messages, not bytes: each write
 * is weighed here and taken off once grpc-js has handed it to HTTP/2.
 */
export class GrpcCallOutputs {
  private readonly conns = new WeakMap<object, ConnectionOutput>();

  constructor(
    private readonly budget: number,
    private readonly onHeldBack?: (queued: number) => void,
  ) {}

  /** Resolves with the call's output once the connection's budget lets it start; never, if it is cancelled first. */
  admit(call: ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<CallOutput> {
    const key = connectionOf(call);
    let conn = this.conns.get(key);
    if (!conn) this.conns.set(key, (conn = new ConnectionOutput(this.budget)));
    const c = conn;
    const id = c.nextId();
    return new Promise((resolve) => {
      c.admission.submit(id, 0, () => resolve(new CallOutput(call, c, this.budget)));
      const queued = c.admission.counts.queued;
      if (queued > 0 && !c.heldBack) {
        c.heldBack = true;
        this.onHeldBack?.(queued);
      }
      if (queued === 0) c.heldBack = false;
      signal.addEventListener('abort', () => c.admission.remove(id), { once: true });
    });
  }
}

/** Roughly the bytes a message puts on the wire: its byte and string fields, one level of nesting deep. */
export function approxBytes(msg: unknown, depth = 0): number {
  if (msg instanceof Uint8Array) return msg.byteLength;
  if (typeof msg === 'string') return msg.length;
  if (depth > 2 || !msg || typeof msg !== 'object') return 0;
  let n = 0;
  for (const v of Object.values(msg as Record<string, unknown>)) n += approxBytes(v, depth + 1);
  return n;
}

/** One call's writes, weighed against its stream's and its connection's budget. */
export class CallOutput {
  private unread = 0;
  private answered = false;

  constructor(
    private readonly call: ServerWritableStream<unknown, unknown>,
    private readonly conn: ConnectionOutput,
    private readonly budget: number,
  ) {}

  /** A progress message: dropped while this stream or its connection is over the budget. */
  progress(msg: unknown, bytes: number): void {
    if (this.unread > this.budget || this.conn.unread > this.budget) return;
    this.write(msg, bytes);
  }

  /** The call's answer (always sent); the connection's queued calls may start as it drains. */
  result(msg: unknown, bytes: number): void {
    this.write(msg, bytes);
    this.done(bytes);
  }

  /** The call ended without an answer written (an error): it no longer counts as running. */
  done(bytes = 0): void {
    if (this.answered) return;
    this.answered = true;
    this.conn.admission.answered(bytes);
  }

  private write(msg: unknown, bytes: number): void {
    const size = MESSAGE_OVERHEAD + bytes;
    this.unread += size;
    this.conn.unread += size;
    this.call.write(msg, () => {
      this.unread -= size;
      this.conn.unread -= size;
      this.conn.admission.pump();
    });
  }
}

/**
 * The HTTP/2 session a grpc-js server call runs on (grpc-js keeps it on its innermost call object; not
 * public API, hence the search). Calls whose session cannot be found count as a connection each.
 */
function connectionOf(call: ServerWritableStream<unknown, unknown>): object {
  let c = (call as unknown as { call?: unknown }).call;
  for (let depth = 0; depth < 8 && c && typeof c === 'object'; depth++) {
    const o = c as { stream?: { session?: object }; nextCall?: unknown };
    if (o.stream?.session) return o.stream.session;
    c = o.nextCall;
  }
  return call;
}
