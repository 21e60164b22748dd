import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OAuthStore } from './token-store.js';
import { StoredOAuthProvider } from './provider.js';
import type { RefreshOutcome } from './sign-in-state.js';
import type { ServerSpec } from '../model/spec.js';

const FP = 'b'.repeat(64);
const SPEC = { name: 'remote', url: 'https://mcp.example/mcp' } as ServerSpec;
const AUTHORIZE = new URL('https://auth.example/authorize?scope=mcp%3Atools');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function signedIn(tokens: { refresh_token?: string; expires_in?: number; scope?: string }): OAuthStore {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-oauth-states-'));
  dirs.push(dir);
  const store = OAuthStore.inStateDir(dir);
  store.update(FP, (r) => ({ ...r, clientInformation: { client_id: 'c1' } }));
  new StoredOAuthProvider(SPEC, FP, store).saveTokens({ access_token: 'a1', token_type: 'Bearer', scope: 'mcp:tools', ...tokens });
  return store;
}

/** What the core's provider throws where the SDK would send a browser to `url`. */
function askedToSignIn(provider: StoredOAuthProvider, url = AUTHORIZE): string {
  try {
    provider.redirectToAuthorization(url);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('redirectToAuthorization did not throw');
}

/**
 * The core's provider (no browser) names the sign-in state at the point where the SDK gives up on the
 * stored sign-in; the end-to-end paths are in test/e2e/oauth-states.test.ts.
 */
describe('StoredOAuthProvider sign-in states', () => {
  it('not signed in yet: no client, no tokens', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpd-oauth-states-'));
    dirs.push(dir);
    const provider = new StoredOAuthProvider(SPEC, FP, OAuthStore.inStateDir(dir));
    expect(() => provider.clientInformation()).toThrow('server remote needs sign-in (not signed in yet)');
  });

  it('expired: the access token ran out and there is no refresh token', () => {
    const store = signedIn({ expires_in: -1 });
    const msg = askedToSignIn(new StoredOAuthProvider(SPEC, FP, store));
    expect(msg).toMatch(
      /needs sign-in \(expired: the access token ran out at \d{4}-\d\d-\d\dT[\d:.]+Z and the authorization server issued no refresh token\)/,
    );
  });

  it('revoked: an access token refused before it ran out, with no refresh token', () => {
    const store = signedIn({ expires_in: 3600 });
    expect(askedToSignIn(new StoredOAuthProvider(SPEC, FP, store))).toContain(
      'needs sign-in (revoked: the server refused the access token before it expired)',
    );
  });

  it('revoked: a refused refresh drops the tokens, and a new core still says revoked (not "not signed in yet")', () => {
    const store = signedIn({ refresh_token: 'r1', expires_in: 3600 });
    const refused: RefreshOutcome = { status: 400, error: 'invalid_grant', description: 'refresh token revoked' };
    const core = new StoredOAuthProvider(SPEC, FP, store, undefined, () => refused);
    core.invalidateCredentials('tokens');
    expect(core.tokens()).toBeUndefined();
    const expected =
      'needs sign-in (revoked: the authorization server refused the refresh token (the token endpoint answered HTTP 400 invalid_grant: refresh token revoked))';
    expect(askedToSignIn(core)).toContain(expected);
    expect(askedToSignIn(new StoredOAuthProvider(SPEC, FP, store))).toContain(expected);
    // A sign-in clears it.
    new StoredOAuthProvider(SPEC, FP, store, {
      redirectUrl: 'http://127.0.0.1:1/callback',
      state: 's',
      onAuthorizationUrl: () => {},
    }).saveTokens({
      access_token: 'a2',
      token_type: 'Bearer',
    });
    expect(store.read(FP).lost).toBeUndefined();
  });

  it('revoked: the client itself refused (invalid_client drops everything), said where the client is asked for', () => {
    const store = signedIn({ refresh_token: 'r1' });
    const core = new StoredOAuthProvider(SPEC, FP, store, undefined, () => ({ status: 401, error: 'invalid_client' }));
    core.invalidateCredentials('all');
    expect(() => core.clientInformation()).toThrow(
      'needs sign-in (revoked: the authorization server no longer accepts this client (the token endpoint answered HTTP 401 invalid_client))',
    );
  });

  it('refresh failed: the refresh token is still there and the last refresh got a 5xx or no answer', () => {
    const store = signedIn({ refresh_token: 'r1' });
    const down = new StoredOAuthProvider(SPEC, FP, store, undefined, () => ({ unreachable: 'fetch failed' }));
    expect(askedToSignIn(down)).toContain(
      'needs sign-in (refresh failed: the token endpoint could not be reached: fetch failed; the tokens are kept and the next request tries again)',
    );
    const busy = new StoredOAuthProvider(SPEC, FP, store, undefined, () => ({ status: 503 }));
    expect(askedToSignIn(busy)).toContain('needs sign-in (refresh failed: the token endpoint answered HTTP 503;');
  });

  it('step-up keeps its own words: the server asks for a scope the token was not granted', () => {
    const store = signedIn({ refresh_token: 'r1' });
    const provider = new StoredOAuthProvider(SPEC, FP, store);
    expect(askedToSignIn(provider, new URL('https://auth.example/authorize?scope=mcp%3Atools+mcp%3Aadmin'))).toContain(
      'needs sign-in (the server asks for scope "mcp:tools mcp:admin")',
    );
    expect(store.read(FP).pendingScope).toBe('mcp:tools mcp:admin');
  });
});
