import type { ServerResponse } from 'node:http';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { ReplyChannel, RequestId, RpcError } from './channel.js';
import { HEADER_MISMATCH, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION } from './protocol.js';

/** The code of the answer to a request its client cancelled (the SDK's generic server error). */
const REQUEST_CANCELLED = -32000;

/** The HTTP status 2026-07-28 gives a JSON-RPC error over HTTP (404 for unknown methods, 400 for bad requests). */
function statusOf(code: number): number {
  if (code === METHOD_NOT_FOUND) return 404;
  if (code === HEADER_MISMATCH || code === MISSING_REQUIRED_CLIENT_CAPABILITY || code === UNSUPPORTED_PROTOCOL_VERSION) return 400;
  return 200;
}

/**
 * The answer to one 2026-07-28 request over HTTP: plain JSON, or an SSE stream once the request may
 * carry notifications (a progress token or a log level), always echoing the request's id.
 */
export class Reply implements ReplyChannel {
  private streaming = false;
  private ended = false;
  private readonly abandonHandlers = new Set<() => void>();

  constructor(
    private readonly res: ServerResponse,
    readonly id: RequestId,
    stream: boolean,
  ) {
    if (stream) this.open();
  }

  get done(): boolean {
    return this.ended || this.res.destroyed;
  }

  /** The answer was sent (unlike `done`, false when the client went away first: that needs a cancel). */
  get answered(): boolean {
    return this.ended;
  }

  onAbandon(cb: () => void): () => void {
    const onClose = () => {
      // By the time 'close' fires for a client that left, the response is destroyed: only an answer sent counts.
      if (!this.answered) cb();
    };
    this.abandonHandlers.add(cb);
    this.res.once('close', onClose);
    return () => {
      this.abandonHandlers.delete(cb);
      this.res.off('close', onClose);
    };
  }

  /**
   * The client cancelled the request with `notifications/cancelled` on this connection: what waits for
   * it is told, as when the client leaves, and the HTTP request is still answered (an HTTP/1.1 answer
   * must end for the connection to carry anything else), with an error saying it was cancelled.
   */
  cancel(reason: string): void {
    if (this.done) return;
    for (const cb of [...this.abandonHandlers]) cb();
    this.error({ code: REQUEST_CANCELLED, message: `Request cancelled: ${reason}` }, 200);
  }

  notify(method: string, params: JsonObject): void {
    if (this.done) return;
    this.open();
    this.res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params })}\n\n`);
  }

  result(result: JsonValue): void {
    this.finish(200, { jsonrpc: '2.0', id: this.id, result });
  }

  error(e: RpcError, status = statusOf(e.code)): void {
    this.finish(status, { jsonrpc: '2.0', id: this.id, error: e });
  }

  private open(): void {
    if (this.streaming) return;
    this.streaming = true;
    this.res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    this.res.flushHeaders();
  }

  private finish(status: number, body: object): void {
    if (this.done) return;
    this.ended = true;
    const text = JSON.stringify(body);
    if (this.streaming) {
      this.res.end(`event: message\ndata: ${text}\n\n`);
      return;
    }
    this.res.writeHead(status, { 'Content-Type': 'application/json' }).end(text);
  }
}
