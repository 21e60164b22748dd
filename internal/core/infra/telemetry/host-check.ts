import type { IncomingMessage } from 'node:http';
import { allowedHostnames, isLoopbackAddress, rebindingRejection } from '../../../shared/http-guard.js';

/**
 * The DNS-rebinding check for a listener bound to `boundHost`: a page in a browser may reach a loopback
 * port under a hostname it controls, so Host (and Origin, when sent) must name this machine — and this
 * listener's port (`port()`, known once it listens): a page served by another local web server is "this
 * machine" too, and must not read /metrics. Returns why a request is refused, or undefined. A non-loopback
 * bind is not checked (it was opened on purpose).
 */
export function hostCheck(boundHost: string, port: () => number): (req: IncomingMessage) => string | undefined {
  if (!isLoopbackAddress(boundHost)) return () => undefined;
  const allowed = allowedHostnames(boundHost);
  return (req) => {
    const origin = Array.isArray(req.headers.origin) ? req.headers.origin[0] : req.headers.origin;
    const why = rebindingRejection(req.headers.host, origin, allowed);
    if (why) return why;
    const own = port();
    if (portOf(`http://${req.headers.host}`) !== own) return `Host header "${req.headers.host}" does not name this listener's port ${own}`;
    if (origin !== undefined && portOf(origin) !== own) return `Origin "${origin}" does not name this listener's port ${own}`;
    return undefined;
  };
}

/** The port a URL names, its scheme's default when it names none; undefined when it is no URL. */
function portOf(url: string): number | undefined {
  try {
    const u = new URL(url);
    return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  } catch {
    return undefined;
  }
}
