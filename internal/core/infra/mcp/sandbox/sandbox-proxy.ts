import { lookup } from 'node:dns/promises';
import { createConnection, createServer, isIP, type LookupFunction, type Server, type Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { hostAllowed, type HostRule } from '../../../../contract/model/sandbox.js';
import { isLoopbackAddress, isLoopbackName } from './loopback.js';

/** The most a client may send before its request head ends (CONNECT lines are short; a GET's head is bounded too). */
const MAX_HEAD_BYTES = 16 * 1024;

export interface ProxyDenial {
  host: string;
  port: number;
  why: string;
}

/** A host name's addresses; the system's resolver unless a test gives its own. */
export type ResolveHost = (host: string) => Promise<string[]>;

const systemResolve: ResolveHost = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** Where an allowed connection goes (a loopback literal, or the addresses that were checked), or why it is refused. */
type Verdict = { literal: string } | { addresses: string[] } | { refusal: string } | { unresolved: true };

/**
 * The only way out of a sandboxed server's network namespace: an HTTP proxy (CONNECT, or a plain
 * request in absolute form) on a unix socket bound into the sandbox. Every connection is checked
 * against `network.allow`; a refused one gets 403 and is reported with its host.
 */
export class SandboxProxy {
  private readonly server: Server;
  private readonly open = new Set<Socket>();

  constructor(
    private readonly rules: HostRule[],
    private readonly onDenied: (d: ProxyDenial) => void,
    private readonly resolve: ResolveHost = systemResolve,
  ) {
    this.server = createServer((s) => this.accept(s));
  }

  listen(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(path, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  close(): void {
    for (const s of this.open) s.destroy();
    const address = this.server.address();
    this.server.close();
    // Ignored: the socket file may already be gone with its directory.
    if (typeof address === 'string') rmSync(address, { force: true });
  }

  private track(s: Socket): void {
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    s.on('error', () => s.destroy());
  }

  private accept(client: Socket): void {
    this.track(client);
    let head = Buffer.alloc(0);
    const onData = (d: Buffer): void => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) client.end('HTTP/1.1 431 Request Header Fields Too Large\r\n\r\n');
        return;
      }
      client.off('data', onData);
      client.pause();
      void this.route(client, head.subarray(0, end + 4), head.subarray(end + 4)).catch(() => client.destroy()); // why: a failed route ends only this connection
    };
    client.on('data', onData);
  }

  private async route(client: Socket, head: Buffer, rest: Buffer): Promise<void> {
    const lines = head.toString('latin1').split('\r\n');
    const [method = '', target = ''] = (lines[0] ?? '').split(' ');
    const dest = method === 'CONNECT' ? splitHostPort(target, 443) : absoluteTarget(target);
    if (!dest) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const verdict = await this.verdict(dest.host, dest.port);
    if ('refusal' in verdict) {
      this.onDenied({ host: dest.host, port: dest.port, why: verdict.refusal });
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nmcpd sandbox: ${dest.host}:${dest.port} ${verdict.refusal}\n`);
      return;
    }
    if ('unresolved' in verdict) {
      client.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n\r\nmcpd sandbox: ${dest.host} does not resolve\n`);
      return;
    }
    const upstream =
      'literal' in verdict
        ? createConnection({ host: verdict.literal, port: dest.port })
        : createConnection({ host: dest.host.replace(/^\[(.*)\]$/, '$1'), port: dest.port, lookup: checkedLookup(verdict.addresses) });
    this.track(upstream);
    upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    upstream.once('connect', () => {
      if (method === 'CONNECT') client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      else upstream.write(originForm(lines, dest.path));
      if (rest.length) upstream.write(rest);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }

  /**
   * Whether host:port is allowed, and then where to connect: the addresses that were checked, so a name
   * that resolves elsewhere a moment later (DNS rebinding) cannot reach loopback.
   */
  private async verdict(host: string, port: number): Promise<Verdict> {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    if (isLoopbackName(host)) {
      const literal = this.rules.filter((r) => isLoopbackName(r.host));
      if (hostAllowed(literal, host, port)) return { literal: bare };
      return hostAllowed(this.rules, host, port)
        ? { refusal: 'is loopback, which only a literal entry (127.0.0.1:PORT, localhost:PORT) allows' }
        : { refusal: 'is not in network.allow' };
    }
    if (!hostAllowed(this.rules, host, port)) return { refusal: 'is not in network.allow' };
    // Ignored: a name that does not resolve is answered 502, as a failed connection would be.
    const addresses = isIP(bare) ? [bare] : await this.resolve(bare).catch(() => []);
    // A name that resolves to loopback would reach mcpd's own listeners: only literal loopback rules may.
    if (addresses.some(isLoopbackAddress)) return { refusal: 'resolves to a loopback address' };
    return addresses.length ? { addresses } : { unresolved: true };
  }
}

/**
 * A lookup that answers only the addresses already checked, so the connection cannot go elsewhere, while
 * node still tries each of them in turn (IPv6 and IPv4, autoSelectFamily) as it would after its own lookup.
 */
function checkedLookup(addresses: string[]): LookupFunction {
  const all = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_host, opts, callback) => {
    if (opts.all) callback(null, all);
    else callback(null, all[0]?.address ?? '', all[0]?.family);
  };
}

function splitHostPort(text: string, defaultPort: number): { host: string; port: number; path?: string } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:/]+)(?::(\d+))?$/.exec(text);
  if (!m?.[1]) return undefined;
  const port = m[2] ? Number(m[2]) : defaultPort;
  return port >= 1 && port <= 65535 ? { host: m[1].toLowerCase(), port } : undefined;
}

function absoluteTarget(target: string): { host: string; port: number; path: string } | undefined {
  try {
    const u = new URL(target);
    if (u.protocol !== 'http:') return undefined;
    return { host: u.hostname.toLowerCase(), port: Number(u.port || 80), path: `${u.pathname}${u.search}` };
  } catch {
    return undefined;
  }
}

/** The request head rewritten for the origin server: path only, and one request per connection. */
function originForm(lines: string[], path: string | undefined): string {
  const [method = 'GET', , version = 'HTTP/1.1'] = (lines[0] ?? '').split(' ');
  const headers = lines.slice(1).filter((l) => l !== '' && !/^(proxy-connection|connection|proxy-authorization):/i.test(l));
  return [`${method} ${path ?? '/'} ${version}`, ...headers, 'Connection: close', '', ''].join('\r\n');
}
