import { delimiter } from 'node:path';
import { resolveLoginEnvironment, type LoginEnvironment } from '../infra/environment/login-env.js';

/** The environment `${VAR}` and servers' base variables come from, and how it was made. */
export interface CoreEnvironment {
  env: NodeJS.ProcessEnv;
  /** Where a variable was looked for, for "X is not set" messages (after the store's own env/envFile). */
  lookedIn: string;
}

/**
 * One environment whoever started the core (decision in docs/configuration.md "Environment"): the user's
 * login environment (a login shell of $SHELL, resolved once per core), with what the core's own
 * environment sets on top — a login shell starts from the core's environment, so its profile's additions
 * are what a stripped client (Codex passes five variables, Gemini drops every variable named like a token or key) left out.
 * PATH is the login shell's followed by the core's entries it lacks: a login profile may reset PATH.
 * MCPD_LOGIN_ENV=0 turns the login shell off (the core's environment alone).
 */
export async function coreEnvironment(own: NodeJS.ProcessEnv): Promise<CoreEnvironment> {
  if (own.MCPD_LOGIN_ENV === '0') return { env: own, lookedIn: "mcpd's environment (MCPD_LOGIN_ENV=0: the login shell is not asked)" };
  return merged(own, await resolveLoginEnvironment(own));
}

function merged(own: NodeJS.ProcessEnv, login: LoginEnvironment): CoreEnvironment {
  if (!login.env)
    return { env: own, lookedIn: `mcpd's environment (the login environment of ${login.shell} was not had: ${login.problem})` };
  const env: NodeJS.ProcessEnv = { ...login.env, ...own };
  const path = joinPaths(login.env.PATH, own.PATH);
  if (path !== undefined) env.PATH = path;
  return { env, lookedIn: `mcpd's environment and the login environment of ${login.shell}` };
}

function joinPaths(first: string | undefined, then: string | undefined): string | undefined {
  if (first === undefined) return then;
  const seen = new Set(first.split(delimiter));
  const extra = (then ?? '').split(delimiter).filter((p) => p !== '' && !seen.has(p));
  return [first, ...extra].join(delimiter);
}
