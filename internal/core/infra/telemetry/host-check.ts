import type { IncomingMessage } from 'node:http';
import { allowedHostnames, isLoopbackAddress, rebindingRejection } from '../../../shared/http-guard.js';

/**
 * The DNS-rebinding check for a listener bound to `boundHost`: a page in a browser may reach a loopback
 * port under a hostname it controls, so Host (and Origin, when sent) must name this machine. Returns why a
 * request is refused, or undefined. A non-loopback bind is not checked (it was opened on purpose).
 */
export function hostCheck(boundHost: string): (req: IncomingMessage) => string | undefined {
  if (!isLoopbackAddress(boundHost)) return () => undefined;
  const allowed = allowedHostnames(boundHost);
  return (req) => {
    const origin = req.headers.origin;
    return rebindingRejection(req.headers.host, Array.isArray(origin) ? origin[0] : origin, allowed);
  };
}
