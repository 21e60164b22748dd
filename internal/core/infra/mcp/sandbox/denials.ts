/**
 * What a sandboxed server's own error output says the sandbox refused it: paths it could not open
 * (ENOENT, EACCES, EROFS, EPERM — a path outside its grants does not exist inside) and hosts it could
 * not reach. Heuristic by nature: it reads messages, so it names what the server printed.
 */
const PATH_ERR = /\b(ENOENT|EACCES|EROFS|EPERM)\b[^'"\n]*?['"](\/[^'"\n]+)['"]/;
const PY_PATH_ERR = /\[Errno \d+\] ([^:]+): '(\/[^']+)'/;
const HOST_ERR = /\b(ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|EAI_AGAIN|ENOTFOUND)\b\s+([^\s,;)]+)/;
const PROXY_DENIAL = /^\[mcpd sandbox\] denied connection to (\S+):/;

/** The log line of a connection mcpd's proxy refused (sandbox-proxy.ts), among the server's own lines. */
export function denialLine(d: { host: string; port: number; why: string }): string {
  return `[mcpd sandbox] denied connection to ${d.host}:${d.port}: ${d.why}`;
}

export interface SandboxDenials {
  paths: string[];
  hosts: string[];
}

export function sandboxDenials(lines: string[]): SandboxDenials {
  const paths = new Set<string>();
  const hosts = new Set<string>();
  for (const line of lines) {
    const p = PATH_ERR.exec(line) ?? PY_PATH_ERR.exec(line);
    if (p?.[2]) paths.add(`${p[2]} (${p[1]})`);
    const h = PROXY_DENIAL.exec(line);
    if (h?.[1]) hosts.add(h[1]);
    const e = HOST_ERR.exec(line);
    if (e?.[2] && !h) hosts.add(`${e[2]} (${e[1]})`);
  }
  return { paths: [...paths], hosts: [...hosts] };
}

/** "; the sandbox refused: …" for a start error, or '' when the output names nothing. */
export function describeDenials(d: SandboxDenials): string {
  const parts: string[] = [];
  if (d.paths.length) parts.push(`paths ${d.paths.join(', ')} (outside its filesystem grants?)`);
  if (d.hosts.length) parts.push(`hosts ${d.hosts.join(', ')} (not in network.allow?)`);
  return parts.length ? `; the sandbox may have refused it: ${parts.join('; ')}` : '';
}
