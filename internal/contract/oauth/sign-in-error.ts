import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { McpdError } from '../../shared/errors.js';
import { signInRequiredError } from '../model/sign-in.js';
import { failedRefresh, verdictText } from './sign-in-state.js';

/** The one error a call gets when a server wants (more) sign-in: it names the command that fixes it. */
export const signInRequired = signInRequiredError;

/** The SDK's own "not authorized" failures that reach us past the provider, as the sign-in error. */
export function authFailure(server: string, err: unknown): McpdError | undefined {
  if (err instanceof UnauthorizedError) return signInRequired(server, 'the server refused the stored sign-in');
  // The core only ever posts refreshes to a token endpoint: an OAuth error the SDK raises (rather than
  // handles, e.g. temporarily_unavailable) is the answer to one.
  if (err instanceof OAuthError) return signInRequired(server, verdictText(failedRefresh(err.errorCode, err.message)));
  const m = /^Streamable HTTP error: Server returned (401 after successful authentication|403 after trying upscoping)/.exec(
    (err as Error | undefined)?.message ?? '',
  );
  const [, status] = m ?? [];
  if (status === undefined) return undefined;
  return signInRequired(
    server,
    status.startsWith('401') ? 'the server refused the new token' : 'the server wants scopes the token does not have',
  );
}
