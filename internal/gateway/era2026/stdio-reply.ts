import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { ReplyChannel, RequestId, RpcError } from './channel.js';

/** Writes one JSON-RPC message on stdout; `related` names the request a notification belongs to. */
export type LineWriter = (message: JsonObject, related?: RequestId) => void;

/**
 * The answer to one 2026-07-28 request on stdio: every message is a line on the one stdout (the spec's
 * stdio binding: no per-request streams, no status codes), notifications before the answer, and nothing
 * at all once the client cancelled the request.
 */
export class StdioReply implements ReplyChannel {
  private ended = false;
  private abandoned = false;
  private readonly onAbandoned = new Set<() => void>();

  constructor(
    readonly id: RequestId,
    private readonly write: LineWriter,
  ) {}

  get answered(): boolean {
    return this.ended;
  }

  /** The client gave the request up (`notifications/cancelled`, or stdin closed). */
  abandon(): void {
    if (this.ended || this.abandoned) return;
    this.abandoned = true;
    for (const cb of [...this.onAbandoned]) cb();
    this.onAbandoned.clear();
  }

  onAbandon(cb: () => void): () => void {
    this.onAbandoned.add(cb);
    return () => this.onAbandoned.delete(cb);
  }

  notify(method: string, params: JsonObject): void {
    if (this.ended || this.abandoned) return;
    this.write({ jsonrpc: '2.0', method, params }, this.id);
  }

  result(result: JsonValue): void {
    this.finish({ jsonrpc: '2.0', id: this.id, result });
  }

  error(e: RpcError): void {
    this.finish({ jsonrpc: '2.0', id: this.id, error: e as unknown as JsonObject });
  }

  private finish(message: JsonObject): void {
    // A cancelled request gets no answer (spec: "MUST NOT send any further messages for it").
    if (this.ended || this.abandoned) return;
    this.ended = true;
    this.write(message);
  }
}
