import type { ServerWritableStream } from '@grpc/grpc-js';
import { CallOutput } from './grpc-call-output.js';
import { ConnectionOutput, connectionOf, type OutputBudgetEvents } from './grpc-connection-output.js';
import { StreamOutput } from './grpc-stream-output.js';

/**
 * The Session's output budget (runtime.yaml sessionOutboundBytes) for every server-streaming RPC of the
 * gRPC control plane, per stream and per HTTP/2 connection. Call streams (CallTool, …): progress is
 * dropped while the stream or its connection is over it, and a call starts only while the connection's
 * unread output plus what its running calls are expected to answer fits (RequestAdmission). Subscription
 * streams (watches, logs) wait before taking their next item while the stream or its connection is over
 * it. A client that opens many streams and never reads holds the core to about the budget.
 */
export class GrpcOutputBudget {
  private readonly conns = new WeakMap<object, ConnectionOutput>();

  constructor(
    private readonly budget: number,
    private readonly events: OutputBudgetEvents = {},
  ) {}

  /** Resolves with the call's output once the connection's budget lets it start; never, if it is cancelled first. */
  admit(call: ServerWritableStream<unknown, unknown>, signal: AbortSignal): Promise<CallOutput> {
    const c = this.connection(call);
    const id = c.nextId();
    return new Promise((resolve) => {
      c.admission.submit(id, 0, () => resolve(new CallOutput(call, c)));
      c.noteQueue();
      signal.addEventListener('abort', () => c.admission.remove(id), { once: true });
    });
  }

  /** The output of a subscription stream. */
  stream(call: ServerWritableStream<unknown, unknown>): StreamOutput {
    return new StreamOutput(call, this.connection(call));
  }

  private connection(call: ServerWritableStream<unknown, unknown>): ConnectionOutput {
    const key = connectionOf(call);
    let conn = this.conns.get(key);
    if (!conn) this.conns.set(key, (conn = new ConnectionOutput(this.budget, this.events)));
    return conn;
  }
}
