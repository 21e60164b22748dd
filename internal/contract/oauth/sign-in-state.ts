/**
 * Why a server's stored sign-in does not get a request through, as the person who has to act needs
 * to hear it: never signed in, signed in but the token ran out, signed in but the authorization
 * server took it back, or signed in but renewing the token failed (which may pass by itself).
 */
type SignInState = 'not signed in yet' | 'expired' | 'revoked' | 'refresh failed';

/** How the last refresh request of this process went, as the token endpoint answered it. */
export interface RefreshOutcome {
  /** HTTP status of the token endpoint's answer; absent when it could not be reached. */
  status?: number;
  /** The OAuth `error` and `error_description` of a failed answer. */
  error?: string;
  description?: string;
  /** Why the request did not get an answer (connection refused, DNS, …). */
  unreachable?: string;
}

/** The parts of a stored OAuth record (token-store.ts) the verdict reads. */
interface StoredSignIn {
  lost?: SignInVerdict;
  tokens?: { refresh_token?: string };
  tokensExpireAtUnixMs?: number;
}

export interface SignInVerdict {
  state: SignInState;
  /** What happened, for the error text after the state. */
  detail?: string;
}

/** "state: detail" (or the state alone), the text inside "needs sign-in (…)". */
export function verdictText(v: SignInVerdict): string {
  return v.detail ? `${v.state}: ${v.detail}` : v.state;
}

/**
 * What the core tells a caller when the SDK wants a browser sign-in (it never opens one): read from
 * the stored record and the last refresh this process made, at `now`.
 */
export function lapsedSignIn(rec: StoredSignIn, lastRefresh: RefreshOutcome | undefined, now: number): SignInVerdict {
  if (rec.lost) return { state: rec.lost.state, detail: rec.lost.detail };
  const tokens = rec.tokens;
  if (!tokens) return { state: 'not signed in yet' };
  // The SDK tries a refresh token before it asks for a browser; one still stored failed in a way the
  // SDK lets pass (HTTP 5xx, no answer), so it stays for the next attempt. Not tried at all: the SDK
  // only skips it for tokens another authorization server issued.
  if (tokens.refresh_token) {
    return lastRefresh
      ? { state: 'refresh failed', detail: `${refreshText(lastRefresh)}; the tokens are kept and the next request tries again` }
      : { state: 'revoked', detail: 'the server now names another authorization server than the one that issued the tokens' };
  }
  const expiry = rec.tokensExpireAtUnixMs;
  if (expiry !== undefined && expiry <= now) {
    return {
      state: 'expired',
      detail: `the access token ran out at ${new Date(expiry).toISOString()} and the authorization server issued no refresh token`,
    };
  }
  return { state: 'revoked', detail: 'the server refused the access token before it expired' };
}

/** The record's note when the authorization server refused a refresh (the SDK then drops the tokens). */
export function refusedRefresh(what: 'tokens' | 'client', lastRefresh: RefreshOutcome | undefined): SignInVerdict {
  const answer = lastRefresh ? ` (${refreshText(lastRefresh)})` : '';
  return what === 'tokens'
    ? { state: 'revoked', detail: `the authorization server refused the refresh token${answer}` }
    : { state: 'revoked', detail: `the authorization server no longer accepts this client${answer}` };
}

/** An OAuth error the SDK raised out of a refresh (one it does not handle itself, e.g. temporarily_unavailable). */
export function failedRefresh(code: string, message: string): SignInVerdict {
  return { state: 'refresh failed', detail: `the token endpoint answered ${code}${message ? `: ${message}` : ''}` };
}

function refreshText(o: RefreshOutcome): string {
  if (o.unreachable !== undefined) return `the token endpoint could not be reached: ${o.unreachable}`;
  const why = [o.error, o.description].filter(Boolean).join(': ');
  return `the token endpoint answered HTTP ${o.status}${why ? ` ${why}` : ''}`;
}
