import { EventEmitter } from 'node:events';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { SessionClientMessage, SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';
import type { SessionServerStream } from './session-server.js';

/** Protobuf framing and field tags around a message's JSON payloads: small next to them, counted as this. */
const MESSAGE_OVERHEAD = 32;

/**
 * The gRPC `Session` call as a SessionServerStream that counts its unread output in bytes. grpc-js
 * streams are object-mode: their own writableLength counts messages, so a 4 MB answer weighed as much as
 * a ping and the output budget never tripped. Each message here weighs its JSON payloads and is taken off
 * once grpc-js has handed it to HTTP/2 (which holds it while the peer's flow-control window is shut).
 */
export class GrpcSessionStream extends EventEmitter implements SessionServerStream {
  private unflushed = 0;

  constructor(private readonly call: ServerDuplexStream<SessionClientMessage, SessionServerMessage>) {
    super();
    call.on('data', (msg: SessionClientMessage) => this.emit('data', msg));
    for (const event of ['end', 'error', 'cancelled', 'close'] as const) call.on(event, () => this.emit(event));
  }

  get writableLength(): number {
    return this.unflushed;
  }

  write(msg: SessionServerMessage): boolean {
    const size = messageBytes(msg);
    this.unflushed += size;
    return this.call.write(msg, () => {
      this.unflushed -= size;
      if (this.unflushed === 0) this.emit('drain');
    });
  }

  pause(): void {
    this.call.pause();
  }

  resume(): void {
    this.call.resume();
  }

  end(): void {
    this.call.end();
  }
}

/** The bytes a server message puts on the wire, near enough: its JSON payloads and text plus framing. */
function messageBytes(msg: SessionServerMessage): number {
  const r = msg.response;
  if (r) return MESSAGE_OVERHEAD + (r.resultJson?.length ?? 0) + (r.error ? r.error.message.length + r.error.dataJson.length : 0);
  if (msg.notification) return MESSAGE_OVERHEAD + msg.notification.method.length + msg.notification.paramsJson.length;
  if (msg.request) return MESSAGE_OVERHEAD + msg.request.method.length + msg.request.paramsJson.length;
  return MESSAGE_OVERHEAD;
}
