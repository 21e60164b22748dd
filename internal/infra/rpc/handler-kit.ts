import type { sendUnaryData, ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import { toServiceError } from './status-map.js';

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
    const stop = () => void it.return?.();
    call.on('cancelled', stop);
    call.on('close', stop);
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
