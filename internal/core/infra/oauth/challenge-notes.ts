import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthStore } from '../../../contract/oauth/token-store.js';

/**
 * A fetch for a server's transport that notes the scope of every 401/403 challenge, so the next
 * `mcpdctl auth` asks for what the server wanted (step-up) even when the SDK gave up on its own
 * (it refreshes a token rather than widening it, then reports the repeated 403).
 */
export function noteChallenges(store: OAuthStore, fingerprint: string, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const res = await base(url, init);
    if (res.status === 401 || res.status === 403) {
      const { scope } = extractWWWAuthenticateParams(res);
      if (scope) store.update(fingerprint, (r) => (r.pendingScope === scope ? r : { ...r, pendingScope: scope }));
    }
    return res;
  };
}
