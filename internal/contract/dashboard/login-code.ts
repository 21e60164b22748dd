import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Single-use, short-lived dashboard login codes. `mcpd open` puts one in the URL it hands
 * the browser instead of the core's long-lived access token, which any local user could read from the
 * browser's command line. The code is `<nonce>.<expiry ms>.<mac>`, the mac an HMAC of nonce and expiry
 * keyed with the access token: whoever can read the token (the 0600 record) can mint one, no one else,
 * and the core redeems each nonce once.
 */
export const LOGIN_CODE_TTL_MS = 60_000;
const CODE = /^([A-Za-z0-9_-]{22})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

function mac(token: string, nonce: string, expiry: number): string {
  return createHmac('sha256', token).update(`mcpd-dashboard-login:${nonce}.${expiry}`).digest('base64url');
}

export function mintLoginCode(token: string, now = Date.now()): string {
  const nonce = randomBytes(16).toString('base64url');
  const expiry = now + LOGIN_CODE_TTL_MS;
  return `${nonce}.${expiry}.${mac(token, nonce, expiry)}`;
}

export type LoginCheck = { ok: true; nonce: string; expiry: number } | { ok: false; why: string };

/** Checks a code's form, mac and expiry (not whether it was used: the core keeps that). */
export function checkLoginCode(code: string, token: string, now = Date.now()): LoginCheck {
  const m = CODE.exec(code);
  if (!m) return { ok: false, why: 'this login link is malformed' };
  const [, nonce = '', exp = '', given = ''] = m;
  const expiry = Number(exp);
  const want = Buffer.from(mac(token, nonce, expiry));
  const got = Buffer.from(given);
  if (got.length !== want.length || !timingSafeEqual(got, want))
    return { ok: false, why: 'this login link is not from this core (or the core restarted)' };
  if (expiry < now) return { ok: false, why: 'this login link has expired (links work once, for a minute)' };
  return { ok: true, nonce, expiry };
}
