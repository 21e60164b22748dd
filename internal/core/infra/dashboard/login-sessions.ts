import { randomBytes } from 'node:crypto';
import { sha256, type HandedLogin } from '../../../contract/dashboard/access-token.js';

/** How long one browser login lasts (renewals across core restarts keep its end; `mcpd open` starts a new one). */
export const LOGIN_TTL_MS = 12 * 3600_000;

/**
 * The dashboard's browser logins. Each login gives its page a random value of its own (never the core's
 * access token), which the page keeps in its origin's sessionStorage and presents explicitly: no cookie,
 * so nothing ambient reaches another port of 127.0.0.1. Only hashes are kept. A login ends at logout or
 * expiry; a graceful stop hands the live ones to the next core, where each may be renewed once (the new
 * value keeps the login's end).
 */
export class LoginSessions {
  private readonly live = new Map<string, number>();
  private readonly handed = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    handoff: HandedLogin[],
    /** Called with a login's hash when it ends (logout or expiry): its sockets are closed. */
    private readonly ended: (hash: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    for (const l of handoff) if (l.expires > this.now()) this.handed.set(l.sha256, l.expires);
  }

  /** A new login; its value for the page. */
  open(expires = this.now() + LOGIN_TTL_MS): string {
    const value = randomBytes(32).toString('base64url');
    const hash = sha256(value);
    this.live.set(hash, expires);
    // Ends by itself (and closes its sockets); unref: a login never keeps the core alive.
    const t = setTimeout(() => this.endHash(hash), Math.max(0, expires - this.now()));
    t.unref();
    this.timers.set(hash, t);
    return value;
  }

  /** The login's hash when `value` is a live login here. */
  check(value: string | undefined): string | undefined {
    if (!value) return undefined;
    const hash = sha256(value);
    const expires = this.live.get(hash);
    if (expires === undefined) return undefined;
    if (expires <= this.now()) return void this.endHash(hash);
    return hash;
  }

  /** Whether `value` is a previous core's login that has not been renewed yet. */
  renewable(value: string | undefined): boolean {
    const expires = value ? this.handed.get(sha256(value)) : undefined;
    return expires !== undefined && expires > this.now();
  }

  /** Trades a previous core's login value for a new one, once; undefined when it is not renewable. */
  renew(value: string | undefined): string | undefined {
    if (!value || !this.renewable(value)) return undefined;
    const hash = sha256(value);
    const expires = this.handed.get(hash) ?? 0;
    this.handed.delete(hash);
    return this.open(expires);
  }

  /** Logout: false when `value` was no live login. */
  end(value: string | undefined): boolean {
    const hash = this.check(value);
    if (!hash) return false;
    this.endHash(hash);
    return true;
  }

  /** The live logins, for the next core. */
  handoff(): HandedLogin[] {
    const now = this.now();
    return [...this.live].filter(([, e]) => e > now).map(([sha, expires]) => ({ sha256: sha, expires }));
  }

  private endHash(hash: string): void {
    this.live.delete(hash);
    clearTimeout(this.timers.get(hash));
    this.timers.delete(hash);
    this.ended(hash);
  }
}
