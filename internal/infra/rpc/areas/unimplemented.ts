import { status, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData } from '@grpc/grpc-js';

/** For RPCs in the contract that this build does not serve yet: a clear UNIMPLEMENTED. */
export function unimplementedUnary<Req, Res>(name: string) {
  return (_call: ServerUnaryCall<Req, Res>, cb: sendUnaryData<Res>) =>
    cb({ code: status.UNIMPLEMENTED, details: `${name} is not implemented by this core yet` });
}

export function unimplementedStream<Req, Res>(name: string) {
  return (call: ServerWritableStream<Req, Res>) =>
    call.emit('error', { code: status.UNIMPLEMENTED, details: `${name} is not implemented by this core yet` });
}
