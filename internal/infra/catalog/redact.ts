import type { ServerSpec } from '../../domain/spec.js';

export const REDACTED = '***';

/** Secret substrings each loaded spec was expanded with; kept off the spec so fingerprints ignore them. */
const secretsOf = new WeakMap<ServerSpec, readonly string[]>();

export function rememberSecrets(spec: ServerSpec, secrets: Iterable<string>): void {
  const list = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  if (list.length) secretsOf.set(spec, list);
}

function mask(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join(REDACTED);
  return out;
}

function maskAll(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((k) => [k, REDACTED]));
}

/**
 * A copy for display and logs: every env and headers value becomes "***", and text that came from an
 * environment variable or a password input is masked inside cmd, cwd and url too.
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
  if (spec.url !== undefined) out.url = mask(spec.url, secrets);
  return out;
}
