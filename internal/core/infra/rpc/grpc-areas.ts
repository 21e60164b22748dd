import type { sendUnaryData, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import type { ControlApi } from '../../../contract/control/control.js';
import type { ControlPlaneServer } from '../../../contract/gen/mcpd/control/v1/control.js';
import {
  isAbsent,
  type Area,
  type AreaMethod,
  type CallContext,
  type GrpcCall,
  type GrpcStream,
  type RpcName,
} from '../../../contract/areas/area.js';
import { toServiceError } from '../../../contract/session/status-map.js';
import type { CallOutput } from './grpc-call-output.js';
import { approxBytes } from './grpc-connection-output.js';
import { GrpcOutputBudget } from './grpc-output-budget.js';
import { DEFAULT_SESSION_OUTBOUND_BYTES } from './outbound-gate.js';

type AnyCall = ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>;
type Handler = (call: any, cb?: sendUnaryData<unknown>) => void;

/** The gRPC projection of the areas: one ControlPlane handler per declared RPC. */
export function grpcAreaHandlers(
  api: ControlApi,
  areas: readonly Area[],
  outputs = new GrpcOutputBudget(DEFAULT_SESSION_OUTBOUND_BYTES),
): Partial<ControlPlaneServer> {
  const handlers: Partial<Record<RpcName, Handler>> = {};
  for (const m of areas.flatMap((a) => a.methods)) {
    if (isAbsent(m.grpc)) continue;
    if (handlers[m.grpc.rpc]) throw new Error(`RPC ${m.grpc.rpc} is declared twice`);
    handlers[m.grpc.rpc] = 'open' in m.grpc ? streamHandler(api, m.grpc, outputs) : callHandler(api, m, m.grpc, outputs);
  }
  return handlers as Partial<ControlPlaneServer>;
}

/**
 * A unary RPC, or a server stream of progress events then the result. Cancelling the RPC cancels the
 * call; the shorter of the request's timeout and the gRPC deadline applies. A stream starts only when its
 * connection's output budget allows, and its progress is dropped while it or its connection is over it.
 */
function callHandler(api: ControlApi, m: AreaMethod, g: GrpcCall<unknown, unknown>, outputs: GrpcOutputBudget): Handler {
  const invoke = m.invoke;
  if (!invoke) throw new Error(`area method ${m.name} has a gRPC call but no core call`);
  const run = (ctx: CallContext, req: unknown) => invoke(api, req, ctx);
  if (g.progressToPb) {
    const progressToPb = g.progressToPb;
    return (call: ServerWritableStream<unknown, unknown>) => {
      const signal = cancellation(call);
      let out: CallOutput | undefined;
      outputs
        .admit(call, signal)
        .then((o) => {
          out = o;
          const { ctx, req } = contextOf(call, g, signal);
          ctx.onProgress = (p) => {
            const msg = progressToPb(p);
            o.progress(msg, approxBytes(msg));
          };
          return run(ctx, req);
        })
        // Encoding inside the chain: a result that cannot be encoded is answered as an error.
        .then((res) => g.toPb(res, call.request))
        .then(
          (msg) => {
            out?.result(msg, approxBytes(msg));
            call.end();
          },
          (e: unknown) => {
            out?.done();
            call.emit('error', toServiceError(e));
          },
        );
    };
  }
  return (call: ServerUnaryCall<unknown, unknown>, cb?: sendUnaryData<unknown>) => {
    const signal = cancellation(call);
    Promise.resolve()
      .then(() => {
        const { ctx, req } = contextOf(call, g, signal);
        return run(ctx, req);
      })
      .then((res) => g.toPb(res, call.request))
      .then(
        (msg) => cb!(null, msg),
        (e: unknown) => cb!(toServiceError(e)),
      );
  };
}

/** Aborts when the client cancels the RPC (registered before anything can await). */
function cancellation(call: AnyCall): AbortSignal {
  const ac = new AbortController();
  call.on('cancelled', () => ac.abort(new Error('the gRPC call was cancelled')));
  return ac.signal;
}

function contextOf(call: AnyCall, g: GrpcCall<unknown, unknown>, signal: AbortSignal): { ctx: CallContext; req: unknown } {
  const from = g.fromPb(call.request);
  const timeouts = [from.timeoutMs, deadlineMs(call)].filter((x): x is number => x !== undefined);
  return {
    req: from.req,
    ctx: {
      caller: from.caller,
      signal,
      timeoutMs: timeouts.length ? Math.min(...timeouts) : undefined,
      routingKey: apiRoutingKey(from.caller, from.routingKey),
    },
  };
}

/**
 * A gRPC client's routing key lives in a namespace of its own caller: taken as given, a key equal to
 * another caller's gateway session id (or a resource subscription's pin) would route that client's
 * calls, and its server's sampling requests, as if they were that session's.
 */
function apiRoutingKey(caller: string, key: string | undefined): string | undefined {
  return key ? `mcpd/api:${encodeURIComponent(caller)}:${key}` : undefined;
}

/** What is left of the call's gRPC deadline, if it has one. */
function deadlineMs(call: AnyCall): number | undefined {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isFinite(at) && at > 0 ? Math.max(1, at - Date.now()) : undefined;
}

/**
 * Pipes a subscription into a server stream until the client goes away. The next item is taken only
 * while the stream and its connection are within the output budget: until the client reads, items wait
 * in the subscription (newest-wins for watches, oldest-dropped with a count for logs) instead of piling
 * up in the transport's buffers.
 */
function streamHandler(api: ControlApi, g: GrpcStream, outputs: GrpcOutputBudget): Handler {
  return (call: ServerWritableStream<unknown, unknown>) => {
    const ac = new AbortController();
    let source: AsyncIterator<unknown> | Iterator<unknown> | undefined;
    const stop = () => {
      ac.abort();
      // A watch's return() only marks it done and settles at once; cancelling the call need not wait.
      void source?.return?.();
    };
    call.on('cancelled', stop);
    call.on('close', stop);
    const metadata = (key: string) => {
      const v = call.metadata.get(key)[0];
      return v === undefined ? undefined : String(v);
    };
    const out = outputs.stream(call);
    // Lives as long as the call; every failure is sent to the client as the call's error below, so this never rejects.
    void (async () => {
      try {
        const it = await g.open(api, call.request, { signal: ac.signal, metadata });
        source = it;
        // Cancelled while opening: end the watch at once (return() settles immediately); the loop below then ends.
        if (ac.signal.aborted) void it.return?.();
        await out.pipe(it, (item) => g.itemToPb(item, call.request), ac.signal);
        call.end();
      } catch (e) {
        ac.abort();
        call.emit('error', toServiceError(e));
      }
    })();
  };
}
