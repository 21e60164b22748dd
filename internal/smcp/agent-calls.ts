/**
 * What one agent connection has in flight: how many routed requests and how many payload bytes (capped, so an
 * agent that floods a computer that never answers cannot grow this process without bound), and which
 * `client:tool_call` req_ids are its own — the only ones its `server:tool_call_cancel` may cancel. Keyed by the
 * connection, never by the name it joined with: a later connection under a departed agent's name owns nothing.
 */
import type { Socket } from 'socket.io';
import { errorPayload, SMCP_CODES, type ErrorPayload } from '../contract/smcp/error-codes.js';

export interface InFlightLimits {
  /** Routed requests of one agent connection waiting for their computer's answer. */
  perAgent: number;
  /** JSON bytes of those requests' payloads. */
  bytesPerAgent: number;
  /** Routed requests waiting on one computer (counted on this node). */
  perComputer: number;
}

export const DEFAULT_IN_FLIGHT_LIMITS: InFlightLimits = { perAgent: 256, bytesPerAgent: 64 * 1024 * 1024, perComputer: 512 };

interface Load {
  count: number;
  bytes: number;
  toolCalls: Set<string>;
  /**
   * Tool calls of this connection that ended here (answered, or 408 while the computer may still run them):
   * a cancel for one is still relayed to the computer, as the reference server does and its SDK expects.
   */
  ended: Set<string>;
}

/** Ended tool calls remembered per connection for a late cancel; the oldest is forgotten first. */
const MAX_ENDED = 256;

const loads = new WeakMap<Socket, Load>();

function loadOf(socket: Socket): Load {
  let l = loads.get(socket);
  if (!l) loads.set(socket, (l = { count: 0, bytes: 0, toolCalls: new Set(), ended: new Set() }));
  return l;
}

/**
 * Admits one routed request of `bytes` from this connection, or says why not. The returned release must be
 * called once the request has its answer.
 */
export function admitRequest(socket: Socket, bytes: number, limits: InFlightLimits): ErrorPayload | (() => void) {
  const l = loadOf(socket);
  if (l.count >= limits.perAgent)
    return tooMany(
      `this agent already has ${l.count} requests waiting for an answer (at most ${limits.perAgent})`,
      'per_agent',
      limits.perAgent,
    );
  if (l.bytes + bytes > limits.bytesPerAgent)
    return tooMany(
      `this agent's requests waiting for an answer already hold ${l.bytes} bytes; ${bytes} more would pass the limit of ${limits.bytesPerAgent}`,
      'bytes_per_agent',
      limits.bytesPerAgent,
    );
  l.count++;
  l.bytes += bytes;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    l.count--;
    l.bytes -= bytes;
  };
}

export function tooMany(why: string, limit: string, value: number): ErrorPayload {
  return errorPayload(SMCP_CODES.tooManyRequests, `${why}; wait for earlier answers (or cancel them) before sending more`, {
    reason: 'too_many_in_flight',
    limit,
    value,
  });
}

/**
 * Marks `reqId` as a tool call in flight on this connection until the returned function runs; after that it
 * stays cancellable (an agent's cancel may cross the answer, or follow a timeout while the computer works on).
 */
export function ownToolCall(socket: Socket, reqId: string): () => void {
  const l = loadOf(socket);
  l.toolCalls.add(reqId);
  return () => {
    l.toolCalls.delete(reqId);
    l.ended.delete(reqId);
    l.ended.add(reqId);
    if (l.ended.size > MAX_ENDED) l.ended.delete(l.ended.values().next().value as string);
  };
}

/** Whether this connection has tool call `reqId` in flight (a new req_id for the connection otherwise). */
export function ownsToolCall(socket: Socket, reqId: string): boolean {
  return loads.get(socket)?.toolCalls.has(reqId) ?? false;
}

/** Whether this connection (not merely an agent of that name) may cancel tool call `reqId`. */
export function mayCancel(socket: Socket, reqId: string): boolean {
  const l = loads.get(socket);
  return l !== undefined && (l.toolCalls.has(reqId) || l.ended.has(reqId));
}
