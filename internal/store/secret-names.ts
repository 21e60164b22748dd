/**
 * Names that say their value is a secret: `GITHUB_TOKEN`, `OPENAI_API_KEY`, `DB_PASSWORD`, `AUTH_HEADER`,
 * `CLIENT_SECRET`, `SENTRY_DSN`, `GH_PAT`… Not `PWD`/`OLDPWD` (the working directory), not `AUTHOR`, not
 * `KEYBOARD`: a variable whose value is a path or a word like `info` must never mask that text everywhere.
 */
const SECRET_NAME =
  /token|secret|passw|passphrase|pwd|api_?key|private_?key|access_?key|(^|_)key(s)?(_|$)|auth(?!or)|credential|cookie|jwt|bearer|signature|(^|_)dsn(_|$)|(^|_)pat(_|$)|conn(ection)?_?str/i;

export function secretName(name: string): boolean {
  if (/^(OLD)?PWD$/i.test(name)) return false;
  return SECRET_NAME.test(name);
}

/** A path is no secret, and masking it would turn every path under it into three stars followed by the rest of the path. */
export function looksLikePath(value: string): boolean {
  return value.startsWith('/') || value.startsWith('~/') || /^[A-Za-z]:[\\/]/.test(value);
}
