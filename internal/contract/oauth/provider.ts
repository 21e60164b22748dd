import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ServerSpec } from '../model/spec.js';
import { signInRequired } from './sign-in-error.js';
import { lapsedSignIn, refusedRefresh, verdictText, type RefreshOutcome } from './sign-in-state.js';
import type { McpdError } from '../../shared/errors.js';
import type { OAuthRecord, OAuthStore } from './token-store.js';

/** Used in client metadata until `mcpdctl auth` has bound a real loopback port. */
const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

export interface InteractiveParts {
  /** The loopback listener's callback URL. */
  redirectUrl: string;
  /** Random `state` of this sign-in; the listener accepts only it. */
  state: string;
  /** Receives the authorization URL to print and open. */
  onAuthorizationUrl: (url: URL) => void;
}

/**
 * mcpd's OAuthClientProvider for one server spec. In the core (no `interactive`) it only uses and
 * refreshes what is stored: where the SDK would register a client or send a browser somewhere it
 * throws the sign-in error naming `mcpdctl auth`, after noting the scope the server asked for. In
 * `mcpdctl auth` it does the whole flow.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier?: string;
  private discovered?: OAuthDiscoveryState;

  constructor(
    private readonly spec: ServerSpec,
    private readonly fingerprint: string,
    private readonly store: OAuthStore,
    private readonly interactive?: InteractiveParts,
    /** The core's: how this process's last refresh went (so a failure can say what the token endpoint answered). */
    private readonly lastRefresh: () => RefreshOutcome | undefined = () => undefined,
  ) {}

  get redirectUrl(): string {
    return this.interactive?.redirectUrl ?? this.store.read(this.fingerprint).redirectUri ?? PLACEHOLDER_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.spec.oauth?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = Boolean(this.spec.oauth?.clientSecret);
    const metadata = {
      client_name: `mcpd (${this.spec.name})`,
      // A local program whose redirect is a loopback listener: a native client (SEP-837, OIDC DCR). SDK v1's
      // type predates the field; registration sends the object as it is.
      application_type: 'native',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      ...(this.spec.oauth?.scopes?.length ? { scope: this.spec.oauth.scopes.join(' ') } : {}),
    };
    return metadata;
  }

  state(): string {
    return this.interactive?.state ?? '';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const o = this.spec.oauth;
    if (o?.clientId) return { client_id: o.clientId, ...(o.clientSecret ? { client_secret: o.clientSecret } : {}) };
    const rec = this.store.read(this.fingerprint);
    // The core registers nothing itself: with no client there are no tokens either, so say what to run
    // before the SDK would register one (dynamically, at the authorization server) on every start.
    if (!rec.clientInformation && !this.interactive) throw this.lapsed(rec);
    return rec.clientInformation;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (!this.interactive) throw signInRequired(this.spec.name, 'this client is not registered with its authorization server yet');
    this.store.update(this.fingerprint, (r) => ({ ...this.label(r), clientInformation: info, redirectUri: this.interactive?.redirectUrl }));
  }

  tokens(): OAuthTokens | undefined {
    // An explicit sign-in asks anew (a refresh could not widen the scope); the stored tokens stay until it succeeds.
    if (this.interactive) return undefined;
    return this.store.read(this.fingerprint).tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    const tokensExpireAtUnixMs = tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000;
    this.store.update(this.fingerprint, (r) => ({
      ...this.label(r),
      tokens,
      tokensExpireAtUnixMs,
      pendingScope: undefined,
      lost: undefined,
    }));
  }

  redirectToAuthorization(url: URL): void {
    if (this.interactive) return this.interactive.onAuthorizationUrl(url);
    const scope = url.searchParams.get('scope') ?? undefined;
    const rec = this.store.update(this.fingerprint, (r) => ({ ...this.label(r), pendingScope: scope }));
    // Step-up: the server wants a scope the stored token was not granted; only a new sign-in widens it.
    if (rec.tokens && scope && lacksScope(rec.tokens.scope, scope))
      throw signInRequired(this.spec.name, `the server asks for scope "${scope}"`);
    throw this.lapsed(rec);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier: the authorization was not started by this process');
    return this.verifier;
  }

  /**
   * Endpoints found by this process only: a stored `token_endpoint` would receive the authorization code
   * and PKCE verifier, so each process discovers them from the server again.
   */
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    // In the core the SDK drops credentials only when the authorization server refused a refresh: keep why,
    // so the sign-in reads as revoked (not as never made) until the next `mcpdctl auth`.
    const refused = this.interactive ? undefined : refusedPart(scope);
    this.store.update(this.fingerprint, (r) => {
      const next = { ...r };
      if (refused) next.lost = { ...refusedRefresh(refused, this.lastRefresh()), atUnixMs: Date.now() };
      if (scope === 'all' || scope === 'client') delete next.clientInformation;
      if (scope === 'all' || scope === 'tokens') delete next.tokens;
      if (scope === 'all' || scope === 'discovery') {
        delete next.discoveryState;
        this.discovered = undefined;
      }
      return next;
    });
  }

  /** The sign-in error for a server whose stored sign-in does not get requests through: which state, and why. */
  private lapsed(rec: OAuthRecord): McpdError {
    return signInRequired(this.spec.name, verdictText(lapsedSignIn(rec, this.lastRefresh(), Date.now())));
  }

  private label<T extends object>(r: T): T & { server: string; url?: string } {
    return { ...r, server: this.spec.name, url: this.spec.url };
  }
}

/** True when `wanted` names a scope the granted ones do not hold (an absent grant is what was asked for). */
function lacksScope(granted: string | undefined, wanted: string): boolean {
  if (granted === undefined) return false;
  const have = new Set(granted.split(' '));
  return wanted.split(' ').some((s) => s !== '' && !have.has(s));
}

/** What a refused refresh took away, by what the SDK invalidates: the tokens (invalid_grant) or the client. */
function refusedPart(scope: 'all' | 'client' | 'tokens' | 'discovery'): 'tokens' | 'client' | undefined {
  if (scope === 'tokens') return 'tokens';
  return scope === 'all' || scope === 'client' ? 'client' : undefined;
}
