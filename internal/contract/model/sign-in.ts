import { McpdError } from '../../shared/errors.js';

/**
 * A server wants (more) OAuth sign-in. Not a crash and not a flaky listing: nothing in the core can
 * fix it, and the moment `mcpdctl auth` has run the next attempt should go through — so pools do not
 * count it towards suspension and listings retry it at once.
 */
export function signInRequiredError(server: string, why: string): McpdError {
  return new McpdError(
    'FAILED_PRECONDITION',
    `server ${server} needs sign-in (${why}): run \`mcpdctl auth ${server}\` (add --caller NAME when several profiles name a server ${server}), then try again`,
    { data: { signInRequired: server } },
  );
}

export function needsSignIn(err: unknown): boolean {
  if (!(err instanceof McpdError)) return false;
  const data = err.details.data as { signInRequired?: unknown } | undefined;
  return typeof data?.signInRequired === 'string';
}
