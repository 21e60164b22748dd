import { describe, expect, it } from 'vitest';
import { ConfirmTokens, phraseAccepted } from './confirm-tokens.js';
import { BridgeError } from '../../contract/desktop-bridge/errors.js';

const params = { target: { selector: { titleContains: 'Send' } } };

function rejection(fn: () => unknown): { code: string; reason: unknown } {
  try {
    fn();
  } catch (e) {
    const err = e as BridgeError;
    return { code: err.code, reason: err.details?.reason };
  }
  throw new Error('expected a rejection');
}

describe('confirm tokens', () => {
  let t = 1_000_000;
  const tokens = new ConfirmTokens(() => t);

  it('issues a UUID v4 bound to method, digest, connection and TTL', () => {
    const rec = tokens.issue('desktop.click', params, 'conn-a', 60_000, 77);
    expect(rec.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(rec).toMatchObject({ method: 'desktop.click', connectionId: 'conn-a', peerPid: 77, expiresAtMs: t + 60_000 });
    expect(rec.paramsDigest).toMatch(/^[0-9a-f]{16}$/);
  });

  it('is used once: the second use is refused', () => {
    const { token } = tokens.issue('desktop.click', params, 'conn-a', 60_000);
    expect(tokens.consume(token, 'desktop.click', { ...params, meta: {}, confirm: { token } }, 'conn-a').token).toBe(token);
    expect(rejection(() => tokens.consume(token, 'desktop.click', params, 'conn-a'))).toEqual({
      code: 'DESKTOP_CONFIRM_REQUIRED',
      reason: 'unknown-or-used',
    });
  });

  it('expires at its TTL (exactly at expiresAt it is already invalid)', () => {
    const { token } = tokens.issue('desktop.click', params, 'conn-a', 500);
    t += 500;
    expect(rejection(() => tokens.consume(token, 'desktop.click', params, 'conn-a'))).toEqual({
      code: 'DESKTOP_CONFIRM_REQUIRED',
      reason: 'expired',
    });
  });

  it('is still valid one millisecond before expiry', () => {
    const { token } = tokens.issue('desktop.click', params, 'conn-a', 500);
    t += 499;
    expect(tokens.consume(token, 'desktop.click', params, 'conn-a').token).toBe(token);
  });

  it('refuses another method, other params, another connection — and is spent by the failed try', () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['desktop.typeText', params, 'conn-a', 'method-mismatch'],
      ['desktop.click', { target: { selector: { titleContains: 'Delete' } } }, 'conn-a', 'params-mismatch'],
      ['desktop.click', params, 'conn-b', 'other-connection'],
    ];
    for (const [method, p, conn, reason] of cases) {
      const { token } = tokens.issue('desktop.click', params, 'conn-a', 60_000);
      expect(rejection(() => tokens.consume(token, method, p, conn))).toEqual({ code: 'DESKTOP_CONFIRM_REQUIRED', reason });
      expect(rejection(() => tokens.consume(token, 'desktop.click', params, 'conn-a')).reason).toBe('unknown-or-used');
    }
  });

  it('refuses an unknown token and forgets the tokens of a closed connection', () => {
    expect(rejection(() => tokens.consume('nope', 'desktop.click', params, 'conn-a')).reason).toBe('unknown-or-used');
    const { token } = tokens.issue('desktop.click', params, 'conn-z', 60_000);
    tokens.forgetConnection('conn-z');
    expect(rejection(() => tokens.consume(token, 'desktop.click', params, 'conn-z')).reason).toBe('unknown-or-used');
  });

  it('drops expired tokens when new ones are issued (no unbounded growth)', () => {
    const local = new ConfirmTokens(() => t);
    for (let i = 0; i < 5; i++) local.issue('desktop.hotkey', { keys: ['a'] }, 'c', 10);
    t += 10;
    local.issue('desktop.hotkey', { keys: ['a'] }, 'c', 10);
    expect(local.size()).toBe(1);
  });
});

describe('phrase fallback', () => {
  it('accepts exactly "CONFIRM" and "CONFIRM:<requestId>" of this request', () => {
    expect(phraseAccepted('CONFIRM', 'r1')).toBe(true);
    expect(phraseAccepted('CONFIRM:r1', 'r1')).toBe(true);
    for (const bad of ['CONFIRM:r2', 'confirm', 'CONFIRM ', ' CONFIRM', 'CONFIRM:', 'CONFIRM:r1 ', undefined, null, 1, true])
      expect(phraseAccepted(bad, 'r1')).toBe(false);
  });
});
