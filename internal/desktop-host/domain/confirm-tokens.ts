import { randomUUID } from 'node:crypto';
import { BridgeError } from '../../contract/desktop-bridge/errors.js';
import { paramsDigest } from './canonical-json.js';

export const DEFAULT_TOKEN_TTL_MS = 60_000;
export const MAX_TOKEN_TTL_MS = 10 * 60_000;
/** Unused tokens one connection may hold: each is meant to be spent at once, so more than this is a runaway client. */
const MAX_TOKENS_PER_CONNECTION = 64;

export interface TokenRecord {
  token: string;
  method: string;
  paramsDigest: string;
  connectionId: string;
  peerPid?: number;
  expiresAtMs: number;
}

type ConfirmRejection = 'unknown-or-used' | 'expired' | 'method-mismatch' | 'params-mismatch' | 'other-connection';

/**
 * Single-use confirm tokens (contract T8.6). A token is bound to the connection that asked for it,
 * to one method and to the digest of that method's params. Consuming checks every binding and
 * deletes the token whatever the outcome, so a token that failed once cannot be retried either.
 */
export class ConfirmTokens {
  private readonly tokens = new Map<string, TokenRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(method: string, params: Record<string, unknown>, connectionId: string, ttlMs: number, peerPid?: number): TokenRecord {
    this.sweep();
    let held = 0;
    for (const r of this.tokens.values()) if (r.connectionId === connectionId) held++;
    if (held >= MAX_TOKENS_PER_CONNECTION)
      throw new BridgeError(
        'DESKTOP_INVALID_REQUEST',
        `this connection already holds ${held} unused confirm tokens (at most ${MAX_TOKENS_PER_CONNECTION}); spend or let them expire before asking for more`,
        { field: 'params.intent', held, max: MAX_TOKENS_PER_CONNECTION },
      );
    const rec: TokenRecord = {
      token: randomUUID(),
      method,
      paramsDigest: paramsDigest(method, params),
      connectionId,
      peerPid,
      expiresAtMs: this.now() + ttlMs,
    };
    this.tokens.set(rec.token, rec);
    return rec;
  }

  /** Throws DESKTOP_CONFIRM_REQUIRED with `details.reason` unless the token authorises exactly this call. */
  consume(token: string, method: string, params: Record<string, unknown>, connectionId: string): TokenRecord {
    const rec = this.tokens.get(token);
    this.tokens.delete(token);
    const reject = (reason: ConfirmRejection, text: string): never => {
      throw new BridgeError('DESKTOP_CONFIRM_REQUIRED', `confirm token rejected: ${text}; ask desktop.confirm.issue for a new one`, {
        reason,
      });
    };
    if (!rec) return reject('unknown-or-used', 'it is unknown or was already used');
    if (this.now() >= rec.expiresAtMs) return reject('expired', `it expired at ${new Date(rec.expiresAtMs).toISOString()}`);
    if (rec.connectionId !== connectionId) return reject('other-connection', 'it was issued to another connection');
    if (rec.method !== method) return reject('method-mismatch', `it was issued for ${rec.method}, not ${method}`);
    if (rec.paramsDigest !== paramsDigest(method, params))
      return reject('params-mismatch', 'the params differ from those it was issued for');
    return rec;
  }

  /** Drops the tokens of a closed connection: they can never be used again. */
  forgetConnection(connectionId: string): void {
    for (const [k, r] of this.tokens) if (r.connectionId === connectionId) this.tokens.delete(k);
  }

  size(): number {
    return this.tokens.size;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, r] of this.tokens) if (t >= r.expiresAtMs) this.tokens.delete(k);
  }
}

/** The T8 phrase fallback: exactly "CONFIRM" or "CONFIRM:<requestId>" of this very request. */
export function phraseAccepted(phrase: unknown, requestId: string): boolean {
  return phrase === 'CONFIRM' || phrase === `CONFIRM:${requestId}`;
}
