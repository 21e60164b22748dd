import type { JsonObject, JsonValue } from '../../shared/json.js';

export type RequestId = string | number;

export interface RpcError {
  code: number;
  message: string;
  data?: JsonValue;
}

/**
 * Where the answer to one 2026-07-28 request goes, whatever carries it: an HTTP response (plain JSON or
 * SSE, reply.ts) or lines on mcpdmcp's stdout (stdio-reply.ts). The endpoint (stateless-endpoint.ts) only
 * speaks to this, so both faces serve requests with one implementation.
 */
export interface ReplyChannel {
  readonly id: RequestId;
  /** The answer was sent (false when the client went away first: that needs a cancel). */
  readonly answered: boolean;
  /** A notification of this request (progress, log messages, a listen stream's notifications). */
  notify(method: string, params: JsonObject): void;
  result(result: JsonValue): void;
  /** `status` is the HTTP status 2026-07-28 gives the error over HTTP; stdio has none. */
  error(e: RpcError, status?: number): void;
  /**
   * Calls `cb` once if the client gives the request up before its answer (HTTP: the request closed;
   * stdio: `notifications/cancelled` for its id, or stdin closed). Returns the way to stop listening.
   */
  onAbandon(cb: () => void): () => void;
}
