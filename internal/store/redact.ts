import { REDACTED, secretRedactor } from '../shared/redactor.js';
import type { ProfileStore } from '../contract/model/profile.js';
import type { ServerSpec } from '../contract/model/spec.js';
import { maskUrlSecrets, urlSecrets } from './url-secrets.js';
import { looksLikePath, secretName } from './secret-names.js';

export { REDACTED };

/** Secret substrings each loaded spec was expanded with; kept off the spec so fingerprints ignore them. */
const secretsOf = new WeakMap<ServerSpec, readonly string[]>();

export function rememberSecrets(spec: ServerSpec, secrets: Iterable<string>): void {
  const list = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  if (list.length) secretsOf.set(spec, list);
}

/** Literal header values shorter than this are not taken for secrets in free text (status masks them all). */
const MIN_LITERAL_SECRET = 8;
/** A value under a name that says it is a secret is masked from this length on (short words are not). */
const MIN_NAMED_SECRET = 4;

/**
 * Every secret value the store knows: variables named like secrets and secret inputs (password and
 * command), env values under such names, header values (and a header's credentials after "Bearer "/"Basic "), URL userinfo and query values
 * (url-secrets.ts) — each also
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
      // An env value is a secret when its name says so (GITHUB_TOKEN, DB_PASSWORD): `LOG_FORMAT: structured`
      // is not, and masking it would hide that word in every log line.
      for (const [k, v] of Object.entries(spec.env)) if (secretName(k) && !looksLikePath(v)) add(v, MIN_NAMED_SECRET);
      for (const v of Object.values(spec.headers)) {
        add(v, MIN_LITERAL_SECRET);
        add(v.split(' ').slice(1).join(' '), MIN_LITERAL_SECRET);
      }
      for (const s of urlSecrets(spec.url)) add(s);
    }
  }
  return [...out];
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
 * environment variable or a secret input is masked inside cmd, cwd and url too, and a URL's password and
 * query values are masked.
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
  if (spec.url !== undefined) out.url = maskUrlSecrets(mask(spec.url, secrets));
  return out;
}
