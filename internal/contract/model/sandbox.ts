/**
 * A stdio server's sandbox (docs/sandbox.md): what it may read and write besides its runtime and
 * package, and which hosts it may connect to. Part of the spec, so of the pool's fingerprint.
 */
export interface SandboxSpec {
  /** Absolute paths the server may read (and not write). */
  read: string[];
  /** Absolute paths the server may read and write. */
  write: string[];
  /** `host`, `host:port`, `*.domain` or `*`; empty = no network at all. */
  allow: string[];
}

/** One `network.allow` entry, parsed. `port` undefined = any port. */
export interface HostRule {
  host: string;
  port?: number;
}

const HOST_RE = /^(\*|\*\.[a-z0-9-]+(\.[a-z0-9-]+)*|[a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/;

/** Parses `host`, `host:port`, `[v6]:port`; an error text for anything else. */
export function parseHostRule(text: string): HostRule | { error: string } {
  const t = text.trim().toLowerCase();
  const m = /^(.*?)(?::(\d+))?$/.exec(t);
  const host = m?.[1] ?? '';
  const portText = m?.[2];
  if (!HOST_RE.test(host)) return { error: `"${text}" is not a host name, "host:port" or "*.domain"` };
  if (portText === undefined) return { host };
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: `port ${portText} in "${text}" is not between 1 and 65535` };
  return { host, port };
}

/** Whether `host:port` matches one of the rules (case-insensitive; `*.d` matches sub-domains of d only). */
export function hostAllowed(rules: HostRule[], host: string, port: number): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return rules.some((r) => {
    if (r.port !== undefined && r.port !== port) return false;
    const rh = r.host.replace(/^\[(.*)\]$/, '$1');
    if (rh === '*') return true;
    if (rh.startsWith('*.')) return h.endsWith(rh.slice(1));
    return rh === h;
  });
}

/** A one-line summary of the grants, for status lines. */
export function describeSandbox(s: SandboxSpec): string {
  const list = (xs: string[]) => (xs.length ? xs.join(', ') : 'none');
  return `read: ${list(s.read)}; write: ${list(s.write)}; network: ${s.allow.length ? s.allow.join(', ') : 'none'}`;
}
