import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Hostnames (as `new URL().hostname` spells them) that always mean this machine. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** True for addresses only this machine can reach: localhost, 127/8, ::1. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** The host part of a URL for `host` (IPv6 literals need brackets). */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/**
 * The hostnames a request to a loopback-bound gateway may name in Host or Origin. Anything else is a
 * page in a browser that got here by DNS rebinding (the same rule as the SDK's hostHeaderValidation
 * middleware, which is Express-only: port-agnostic hostname comparison).
 */
export function allowedHostnames(boundHost: string): string[] {
  return [...new Set([...LOOPBACK_NAMES, urlHost(boundHost).toLowerCase()])];
}

function parsedHost(hostOrUrl: string, isUrl: boolean): { name: string; port: number } | undefined {
  try {
    const u = new URL(isUrl ? hostOrUrl : `http://${hostOrUrl}`);
    return { name: u.hostname.toLowerCase(), port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
  } catch {
    return undefined;
  }
}

/**
 * Why the Host/Origin headers are refused, or undefined when they are fine. With `port` (the listener's
 * own), Host and Origin must name it too: a page of another local web server is "localhost" as well.
 */
export function rebindingRejection(
  host: string | undefined,
  origin: string | undefined,
  allowed: string[],
  port?: number,
): string | undefined {
  if (!host) return 'missing Host header';
  const h = parsedHost(host, false);
  if (!h || !allowed.includes(h.name))
    return `Host header "${host}" is not this gateway's loopback address (allowed: ${allowed.join(', ')})`;
  if (port !== undefined && h.port !== port) return `Host header "${host}" names another port than this listener's ${port}`;
  if (origin !== undefined) {
    const o = parsedHost(origin, true);
    if (!o || !allowed.includes(o.name)) return `Origin "${origin}" is not a loopback origin (allowed hosts: ${allowed.join(', ')})`;
    if (port !== undefined && o.port !== port)
      return `Origin "${origin}" is another port than this listener's ${port} (another local web server's page)`;
  }
  return undefined;
}

/** Constant-time check of `Authorization: Bearer <token>`. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const [, presented] = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '') ?? [];
  if (presented === undefined) return false;
  // Hash both sides so the comparison does not leak the token's length either.
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}
