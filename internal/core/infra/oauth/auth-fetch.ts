import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RefreshOutcome } from '../../../contract/oauth/sign-in-state.js';
import type { OAuthStore } from '../../../contract/oauth/token-store.js';

/** The fetch a server's transport (and the SDK's OAuth steps) go through, and what it saw of refreshes. */
export interface AuthFetch {
  fetch: FetchLike;
  /** How the latest refresh went: undefined before any, and after one that succeeded. */
  lastRefresh: () => RefreshOutcome | undefined;
}

/**
 * A fetch for a server's transport that notes (1) the scope of every 401/403 challenge, so the next
 * `mcpdctl auth` asks for what the server wanted (step-up) even when the SDK gave up on its own (it
 * refreshes a token rather than widening it, then reports the repeated 403), and (2) how each refresh
 * at the token endpoint went: the SDK swallows a 5xx or an unreachable endpoint and asks for a browser
 * instead, so this is the only place that still knows the sign-in was fine and renewing it failed.
 */
export function authFetch(store: OAuthStore, fingerprint: string, base: FetchLike = fetch): AuthFetch {
  let lastRefresh: RefreshOutcome | undefined;
  const observed: FetchLike = async (url, init) => {
    const refreshing = isRefresh(init);
    let res: Response;
    try {
      res = await base(url, init);
    } catch (e) {
      if (refreshing) lastRefresh = { unreachable: (e as Error).message };
      throw e;
    }
    if (refreshing) lastRefresh = res.ok ? undefined : await refusal(res);
    if (res.status === 401 || res.status === 403) {
      const { scope } = extractWWWAuthenticateParams(res);
      if (scope) store.update(fingerprint, (r) => (r.pendingScope === scope ? r : { ...r, pendingScope: scope }));
    }
    return res;
  };
  return { fetch: observed, lastRefresh: () => lastRefresh };
}

/** The SDK posts a refresh as a form with grant_type=refresh_token (client/auth.js refreshAuthorization). */
function isRefresh(init: RequestInit | undefined): boolean {
  return init?.body instanceof URLSearchParams && init.body.get('grant_type') === 'refresh_token';
}

/** The token endpoint's refusal, read from a copy so the SDK still reads the answer itself. */
async function refusal(res: Response): Promise<RefreshOutcome> {
  const body = (await res
    .clone()
    .json()
    // Ignored: a refusal that is not JSON still has its status, which is what the message needs.
    .catch(() => undefined)) as { error?: unknown; error_description?: unknown } | undefined;
  return {
    status: res.status,
    error: typeof body?.error === 'string' ? body.error : undefined,
    description: typeof body?.error_description === 'string' ? body.error_description : undefined,
  };
}
