import { REDACTED, secretRedactor } from '../../shared/redactor.js';
import type { ProfileStore } from '../model/profile.js';
import type { ServerSpec } from '../model/spec.js';

export { REDACTED };

/** Secret substrings each loaded spec was expanded with; kept off the spec so fingerprints ignore them. */
const secretsOf = new WeakMap<ServerSpec, readonly string[]>();

export function rememberSecrets(spec: ServerSpec, secrets: Iterable<string>): void {
  const list = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  if (list.length) secretsOf.set(spec, list);
}

/** Literal env/header values shorter than this are not taken for secrets in free text (status masks them all). */
const MIN_LITERAL_SECRET = 8;

/**
 * Every secret value the store knows: expanded variables and secret inputs (password and command), env
 * and header values (and a header's credentials after "Bearer "/"Basic "), and URL userinfo — each also
 * as it appears percent-encoded in a URL. Feeds the core's one redactor on every load.
 */
function storeSecrets(store: ProfileStore): string[] {
  const out = new Set<string>();
  const add = (s: string | undefined, min = 1) => {
    if (!s || s.length < min) return;
    out.add(s);
    out.add(encodeURIComponent(s));
  };
  for (const profile of store.profiles.values()) {
    for (const spec of profile.servers) {
      for (const s of secretsOf.get(spec) ?? []) add(s);
      for (const v of Object.values(spec.env)) if (!v.startsWith('/')) add(v, MIN_LITERAL_SECRET);
      for (const v of Object.values(spec.headers)) {
        add(v, MIN_LITERAL_SECRET);
        add(v.split(' ').slice(1).join(' '), MIN_LITERAL_SECRET);
      }
      for (const s of urlCredentials(spec.url)) add(s);
    }
  }
  return [...out];
}

function urlCredentials(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const u = new URL(url);
    return [u.password, decodeURIComponent(u.password), u.username, decodeURIComponent(u.username)].filter((s) => s !== '');
  } catch {
    return [];
  }
}

/** Feeds the core's redactor from a loaded store. */
export function useStoreSecrets(store: ProfileStore): void {
  secretRedactor.use(storeSecrets(store));
}

function mask(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join(REDACTED);
  return secretRedactor.text(out);
}

function maskAll(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((k) => [k, REDACTED]));
}

/**
 * A copy for display and logs: every env and headers value becomes "***", and text that came from an
 * environment variable or a secret input, or is URL userinfo, is masked inside cmd, cwd and url too.
 */
export function redactSpec(spec: ServerSpec): ServerSpec {
  const secrets = secretsOf.get(spec) ?? [];
  const out: ServerSpec = {
    ...spec,
    cmd: spec.cmd.map((a) => mask(a, secrets)),
    env: maskAll(spec.env),
    headers: maskAll(spec.headers),
  };
  if (spec.cwd !== undefined) out.cwd = mask(spec.cwd, secrets);
  if (spec.url !== undefined) out.url = maskUrl(mask(spec.url, secrets));
  return out;
}

/** URL userinfo is a credential even when it was written literally in the profile. */
function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = REDACTED;
    return u.toString();
  } catch {
    return url;
  }
}
