import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpdError } from '../../domain/errors.js';

/** The one error a call gets when a server wants (more) sign-in: it names the command that fixes it. */
export function signInRequired(server: string, why: string): McpdError {
  return new McpdError(
    'FAILED_PRECONDITION',
    `server ${server} needs sign-in (${why}): run \`mcpdctl auth ${server}\` (add --caller NAME when several profiles name a server ${server}), then try again`,
  );
}

/** The SDK's own "not authorized" failures that reach us past the provider, as the sign-in error. */
export function authFailure(server: string, err: unknown): McpdError | undefined {
  if (err instanceof UnauthorizedError) return signInRequired(server, 'the server refused the stored sign-in');
  const m = /^Streamable HTTP error: Server returned (401 after successful authentication|403 after trying upscoping)/.exec(
    (err as Error | undefined)?.message ?? '',
  );
  if (!m) return undefined;
  return signInRequired(server, m[1].startsWith('401') ? 'the server refused the new token' : 'the server wants scopes the token does not have');
}
