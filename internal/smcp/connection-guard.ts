/**
 * Who may connect. A loopback bind refuses foreign Host/Origin headers at the HTTP handshake (a browser page
 * reaching us by DNS rebinding); a configured API key must arrive as the `x-api-key` header of the handshake.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'socket.io';
import { API_KEY_HEADER } from '../contract/smcp/events.js';
import { allowedHostnames, rebindingRejection } from '../shared/http-guard.js';

export function handshakeGuard(
  boundHost: string,
  loopback: boolean,
): (req: IncomingMessage, cb: (err: string | null | undefined, ok: boolean) => void) => void {
  const allowed = allowedHostnames(boundHost);
  return (req, cb) => {
    if (!loopback) return cb(null, true);
    const origin = req.headers.origin;
    const why = rebindingRejection(req.headers.host, typeof origin === 'string' ? origin : undefined, allowed);
    cb(why ?? null, why === undefined);
  };
}

function keyMatches(given: string, expected: string): boolean {
  // Hash both sides so the comparison leaks neither content nor length.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Namespace middleware: the error message reaches the client's `connect_error`. */
export function apiKeyMiddleware(apiKey: string | undefined): (socket: Socket, next: (err?: Error) => void) => void {
  return (socket, next) => {
    if (apiKey === undefined) return next();
    const given = socket.handshake.headers[API_KEY_HEADER];
    if (typeof given !== 'string' || given === '')
      return next(new Error(`unauthorized: send the API key in the "${API_KEY_HEADER}" header of the connection`));
    if (!keyMatches(given, apiKey)) return next(new Error(`unauthorized: the "${API_KEY_HEADER}" header does not match this server's key`));
    next();
  };
}
