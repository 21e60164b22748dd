import type { sendUnaryData, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import { toServiceError } from '../../../contract/session/status-map.js';

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

/** Pipes a subscription into a server stream until the client goes away. */
export function stream<Req, Item, Out>(open: (req: Req) => AsyncIterableIterator<Item>, map: (i: Item) => Out) {
  return (call: ServerWritableStream<Req, Out>) => {
    let it: AsyncIterableIterator<Item>;
    try {
      it = open(call.request);
    } catch (e) {
      call.emit('error', toServiceError(e));
      return;
    }
    // return() only marks the watch done and settles at once; the loop below then ends.
    const stop = () => void it.return?.();
    call.on('cancelled', stop);
    call.on('close', stop);
    // Lives as long as the call; every failure is sent to the client as the call's error, so this never rejects.
    void (async () => {
      try {
        for await (const item of it) call.write(map(item));
        call.end();
      } catch (e) {
        call.emit('error', toServiceError(e));
      }
    })();
  };
}
