import { ConfirmTokens, DEFAULT_TOKEN_TTL_MS, MAX_TOKEN_TTL_MS, phraseAccepted } from './domain/confirm-tokens.js';
import { UI_CONTROL_METHODS } from './domain/canonical-json.js';
import { BridgeError, invalid } from '../contract/desktop-bridge/errors.js';
import type { Meta } from '../contract/desktop-bridge/types.js';
import { objectAt, optionalInt, optionalObject, optionalString } from './domain/validate.js';
import type { CallContext } from './execution.js';

/** Called immediately before a side effect: consumes the token, or accepts the phrase. */
export type ConfirmGate = () => { via: 'token' | 'phrase' | 'none' };

const required = (reason: string, message: string): BridgeError => new BridgeError('DESKTOP_CONFIRM_REQUIRED', message, { reason });

/**
 * Contract 4.2: token first, phrase as fallback. Presence and the phrase are checked up front (so a
 * request without confirmation fails before it waits for the lane); the token itself is consumed only
 * when the returned gate is called, right before the action.
 */
export function confirmGate(
  method: string,
  params: Record<string, unknown>,
  meta: Meta,
  ctx: CallContext,
  tokens: ConfirmTokens,
): ConfirmGate {
  if (!UI_CONTROL_METHODS.includes(method)) return () => ({ via: 'none' });
  const confirm = optionalObject(params.confirm, 'params.confirm');
  if (!confirm)
    throw required(
      'missing',
      `${method} is a ui-control action: pass confirm.token (from desktop.confirm.issue) or confirm.phrase "CONFIRM:${meta.requestId}"`,
    );
  const token = optionalString(confirm.token, 'params.confirm.token');
  if (token !== undefined) return () => (tokens.consume(token, method, params, ctx.connectionId), { via: 'token' });
  if (!phraseAccepted(confirm.phrase, meta.requestId))
    throw required(
      confirm.phrase === undefined ? 'missing' : 'phrase-mismatch',
      `confirm.phrase must be "CONFIRM" or "CONFIRM:${meta.requestId}" (got ${JSON.stringify(confirm.phrase ?? null)})`,
    );
  return () => ({ via: 'phrase' });
}

/** desktop.confirm.issue: a single-use token for one ui-control method and exactly these params. */
export function issueToken(params: Record<string, unknown>, ctx: CallContext, tokens: ConfirmTokens): Record<string, unknown> {
  const intent = objectAt(params.intent, 'params.intent');
  const method = intent.method;
  if (typeof method !== 'string' || !UI_CONTROL_METHODS.includes(method))
    throw invalid(`params.intent.method must be one of ${UI_CONTROL_METHODS.join(', ')} (got ${JSON.stringify(method ?? null)})`, {
      field: 'params.intent.method',
    });
  const intentParams = objectAt(intent.params, 'params.intent.params');
  const ttlMs = optionalInt(params.ttlMs, 'params.ttlMs', 1, MAX_TOKEN_TTL_MS) ?? DEFAULT_TOKEN_TTL_MS;
  const rec = tokens.issue(method, intentParams, ctx.connectionId, ttlMs, ctx.peerPid);
  return {
    token: rec.token,
    expiresAt: new Date(rec.expiresAtMs).toISOString(),
    scope: { method, paramsDigest: rec.paramsDigest },
    peer: { pid: ctx.peerPid ?? null, connectionId: ctx.connectionId },
  };
}
