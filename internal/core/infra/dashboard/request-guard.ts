import type { IncomingMessage } from 'node:http';
import { isLoopbackAddress } from '../../../shared/http-guard.js';

/**
 * DNS-rebinding defence for the dashboard: a browser only reaches us legitimately under a loopback
 * name and our own port. Unlike the gateway's port-agnostic rule, the port must match too: another web
 * server on localhost is "same site" for SameSite cookies, so a page there must not be able to talk to us.
 */
export interface GuardTarget {
  /** The port the listener is bound to. */
  port: number;
  /** Extra host names allowed (the bound host when it is not loopback and remote access was allowed). */
  extraHosts?: string[];
}

function parsed(hostOrUrl: string, isUrl: boolean): URL | undefined {
  try {
    return new URL(isUrl ? hostOrUrl : `http://${hostOrUrl}`);
  } catch {
    return undefined;
  }
}

function portOf(u: URL): number {
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}

function hostAllowed(u: URL, t: GuardTarget): boolean {
  const name = u.hostname.toLowerCase();
  const known = isLoopbackAddress(name) || (t.extraHosts ?? []).map((h) => h.toLowerCase()).includes(name);
  return known && portOf(u) === t.port;
}

/** Why the request's Host/Origin are refused, or undefined when they name this listener. */
export function hostOriginRejection(host: string | undefined, origin: string | undefined, t: GuardTarget): string | undefined {
  if (!host) return 'missing Host header';
  const h = parsed(host, false);
  if (!h || !hostAllowed(h, t)) return `Host "${host}" is not this dashboard's loopback address (use http://127.0.0.1:${t.port}/)`;
  if (origin !== undefined && origin !== '') {
    const o = parsed(origin, true);
    if (!o || o.protocol !== 'http:' || !hostAllowed(o, t)) return `Origin "${origin}" is not this dashboard's origin`;
  }
  return undefined;
}

export function requestRejection(req: IncomingMessage, t: GuardTarget): string | undefined {
  const origin = req.headers.origin;
  return hostOriginRejection(req.headers.host, Array.isArray(origin) ? origin[0] : origin, t);
}
