import type { sendUnaryData, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import { toServiceError } from '../../../contract/session/status-map.js';
import type { GrpcOutputBudget } from './grpc-output-budget.js';

/** Wraps an async unary handler: result or a mapped gRPC status, never an unhandled rejection. */
export function unary<Req, Res>(fn: (req: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res> | Res) {
  return (call: ServerUnaryCall<Req, Res>, cb: sendUnaryData<Res>) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (res) => cb(null, res),
        (e: unknown) => cb(toServiceError(e)),
      );
  };
}

/** Pipes a subscription into a server stream until the client goes away, within the output budget. */
export function stream<Req, Item, Out>(open: (req: Req) => AsyncIterableIterator<Item>, map: (i: Item) => Out, outputs: GrpcOutputBudget) {
  return (call: ServerWritableStream<Req, Out>) => {
    let it: AsyncIterableIterator<Item>;
    try {
      it = open(call.request);
    } catch (e) {
      call.emit('error', toServiceError(e));
      return;
    }
    const ac = new AbortController();
    const stop = () => {
      ac.abort();
      // return() only marks the watch done and settles at once; the pipe below then ends.
      void it.return?.();
    };
    call.on('cancelled', stop);
    call.on('close', stop);
    const out = outputs.stream(call as ServerWritableStream<unknown, unknown>);
    // Lives as long as the call; every failure is sent to the client as the call's error, so this never rejects.
    void (async () => {
      try {
        await out.pipe(it, map, ac.signal);
        call.end();
      } catch (e) {
        call.emit('error', toServiceError(e));
      }
    })();
  };
}
