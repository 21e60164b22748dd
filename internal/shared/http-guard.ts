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

function hostnameOf(hostOrUrl: string, isUrl: boolean): string | undefined {
  try {
    return new URL(isUrl ? hostOrUrl : `http://${hostOrUrl}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Why the Host/Origin headers are refused, or undefined when they are fine. */
export function rebindingRejection(host: string | undefined, origin: string | undefined, allowed: string[]): string | undefined {
  if (!host) return 'missing Host header';
  const h = hostnameOf(host, false);
  if (!h || !allowed.includes(h)) return `Host header "${host}" is not this gateway's loopback address (allowed: ${allowed.join(', ')})`;
  if (origin !== undefined) {
    const o = hostnameOf(origin, true);
    if (!o || !allowed.includes(o)) return `Origin "${origin}" is not a loopback origin (allowed hosts: ${allowed.join(', ')})`;
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
