import { REDACTED } from '../shared/redactor.js';

/** A query parameter whose name says it carries a credential: its value is masked however short. */
const SECRET_PARAM = /token|key|secret|pass|pwd|auth|sig|session|credential|code|cookie|jwt|bearer/i;

/** Other query values shorter than this are not masked in free text ("json", "2"); in a shown URL every value is. */
const MIN_PLAIN_QUERY_SECRET = 8;

/**
 * The credentials a server URL carries, as they may appear in text: userinfo (raw and decoded), the
 * `Basic` credential the core sends for it, and query values — every value of a parameter named like a
 * secret (`token`, `api_key`, `access_token`, …), and, to be safe, every other value long enough not to
 * garble unrelated text. Each raw (as written) and decoded.
 */
export function urlSecrets(url: string | undefined): string[] {
  if (!url) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const s of [u.password, u.username]) if (s !== '') out.push(s, safeDecode(s));
  const basic = basicCredential(u);
  if (basic) out.push(basic);
  for (const [name, raw] of rawQuery(u.search)) {
    const decoded = safeDecode(raw.replace(/\+/g, ' '));
    const min = SECRET_PARAM.test(safeDecode(name)) ? 1 : MIN_PLAIN_QUERY_SECRET;
    for (const v of [raw, decoded]) if (v.length >= min) out.push(v);
  }
  return out;
}

/** A URL for display: the password and every query value become "***" (names stay, to say what was there). */
export function maskUrlSecrets(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.password) u.password = REDACTED;
  if (u.search.length > 1) {
    u.search = rawQuery(u.search)
      .map(([name, raw]) => (raw === '' ? name : `${name}=${REDACTED}`))
      .join('&');
  }
  return u.toString();
}

/**
 * The `user:password` of a URL's userinfo as a Basic credential (base64), or undefined without
 * userinfo. fetch refuses a URL with credentials, so the core sends them as this header instead.
 */
export function basicCredential(u: URL): string | undefined {
  if (u.username === '' && u.password === '') return undefined;
  return Buffer.from(`${safeDecode(u.username)}:${safeDecode(u.password)}`, 'utf8').toString('base64');
}

/** name → value pairs of a `?query` exactly as written (not decoded). */
function rawQuery(search: string): [string, string][] {
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
    });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
