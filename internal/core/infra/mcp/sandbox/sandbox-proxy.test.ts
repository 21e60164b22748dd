import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHostRule, type HostRule } from '../../../../contract/model/sandbox.js';
import { denialLine } from './denials.js';
import { SandboxProxy, type ProxyDenial } from './sandbox-proxy.js';

/**
 * mcpd's sandbox proxy on a real unix socket, reaching real HTTP servers: one on loopback, one on this
 * machine's non-loopback address, which the injected resolver gives for every `*.example.test` name.
 */
const external = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('SandboxProxy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-proxy-test-'));
  let outside: Server;
  let loopback: Server;
  let proxy: SandboxProxy | undefined;
  const hits: string[] = [];

  /** An HTTP server that answers with where it was reached. */
  const origin = async (address: string, name: string): Promise<Server> => {
    const s = createServer((req, res) => {
      hits.push(`${name} ${req.url}`);
      res.end(`${name} ${req.url}`);
    });
    await new Promise<void>((r) => s.listen(0, address, r));
    return s;
  };
  const portOf = (s: Server) => (s.address() as AddressInfo).port;

  beforeAll(async () => {
    if (!external) throw new Error('this test needs a non-loopback IPv4 interface (the allowed hosts resolve to it)');
    outside = await origin(external, 'outside');
    loopback = await origin('127.0.0.1', 'loopback');
  });
  afterEach(() => {
    proxy?.close();
    proxy = undefined;
    hits.length = 0;
  });
  afterAll(async () => {
    await Promise.all([outside, loopback].map((s) => new Promise((r) => s.close(r))));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A proxy for `allow`, whose resolver answers `answers(name)` and counts its questions. */
  async function start(allow: string[], answers: (name: string) => string[] = () => [external as string]) {
    const denied: ProxyDenial[] = [];
    const asked: string[] = [];
    const rules = allow.map((a) => parseHostRule(a) as HostRule);
    proxy = new SandboxProxy(
      rules,
      (d) => denied.push(d),
      async (name) => (asked.push(name), answers(name)),
    );
    const socket = join(dir, `p${Math.random().toString(36).slice(2)}.sock`);
    await proxy.listen(socket);
    /** Sends `head` to the proxy and reads until `done(text)` or the end: what came back. */
    const exchange = (head: string, done: (text: string) => boolean = () => false) =>
      new Promise<string>((resolve, reject) => {
        const c = connect(socket);
        let text = '';
        c.setEncoding('latin1');
        c.on('data', (d: string) => {
          text += d;
          if (done(text)) c.destroy();
        });
        c.on('close', () => resolve(text));
        c.on('error', reject);
        c.write(head);
      });
    /** A plain request in absolute form through the proxy: the whole response. */
    const get = (host: string, port: number, path = '/x') =>
      exchange(`GET http://${host}:${port}${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
    /** A CONNECT through the proxy (the host as written): its status line. */
    const tunnel = async (hostPort: string) =>
      (await exchange(`CONNECT ${hostPort} HTTP/1.1\r\nHost: ${hostPort}\r\n\r\n`, (t) => t.includes('\r\n'))).split('\r\n')[0];
    return { get, tunnel, denied, asked };
  }

  it('lets a named host through to the address it resolved to, on any port', async () => {
    const p = await start(['api.example.test']);
    const res = await p.get('api.example.test', portOf(outside), '/named');
    expect(res).toMatch(/^HTTP\/1\.1 200/);
    expect(res).toContain('outside /named');
    expect(await p.tunnel(`api.example.test:${portOf(outside)}`)).toBe('HTTP/1.1 200 Connection Established');
    expect(p.denied).toEqual([]);
  });

  it('a *.domain rule allows its sub-domains, not the domain itself nor a look-alike', async () => {
    const p = await start(['*.example.test']);
    expect(await p.get('a.b.example.test', portOf(outside))).toContain('outside /x');
    expect(await p.get('example.test', portOf(outside))).toMatch(/^HTTP\/1\.1 403/);
    expect(await p.get('badexample.test', portOf(outside))).toMatch(/^HTTP\/1\.1 403/);
    expect(p.denied.map((d) => d.host)).toEqual(['example.test', 'badexample.test']);
    expect(hits).toEqual(['outside /x']);
  });

  it('a host:port rule allows that port only', async () => {
    const port = portOf(outside);
    const p = await start([`api.example.test:${port}`]);
    expect(await p.get('api.example.test', port)).toContain('outside /x');
    const other = await p.get('api.example.test', port + 1);
    expect(other).toContain(`403 Forbidden`);
    expect(other).toContain(`mcpd sandbox: api.example.test:${port + 1} is not in network.allow`);
    expect(p.denied).toEqual([{ host: 'api.example.test', port: port + 1, why: 'is not in network.allow' }]);
  });

  it('refuses a name that resolves to loopback, and loopback literals, even under *', async () => {
    const port = portOf(loopback);
    const p = await start(['*'], (name) => (name === 'sneaky.example.test' ? ['203.0.113.9', '127.0.0.1'] : [external as string]));
    expect(await p.get('sneaky.example.test', port)).toContain('resolves to a loopback address');
    for (const host of ['127.0.0.1', 'localhost', '0.0.0.0', '[::ffff:127.0.0.1]'])
      expect(await p.get(host, port), host).toContain('is loopback, which only a literal entry');
    expect(await p.tunnel(`[::ffff:127.0.0.1]:${port}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(await p.tunnel(`[::]:${port}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(hits).toEqual([]);
    expect(p.denied.slice(-2).map((d) => d.why)).toEqual([
      'is loopback, which only a literal entry (127.0.0.1:PORT, localhost:PORT) allows',
      'is loopback, which only a literal entry (127.0.0.1:PORT, localhost:PORT) allows',
    ]);
    expect(p.denied.slice(0, 5).map((d) => `${d.host}:${d.port}`)).toEqual([
      `sneaky.example.test:${port}`,
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `0.0.0.0:${port}`,
      `[::ffff:7f00:1]:${port}`, // the request's URL, as WHATWG URL spells it
    ]);
  });

  it('a literal loopback entry reaches loopback on its port', async () => {
    const port = portOf(loopback);
    const p = await start([`127.0.0.1:${port}`]);
    expect(await p.get('127.0.0.1', port)).toContain('loopback /x');
    expect(p.asked).toEqual([]); // a literal is not resolved
  });

  it('connects to the address it checked: a name resolved once per connection (no rebinding to loopback)', async () => {
    let answer = 0;
    // A rebinding resolver: an outside address first, loopback after.
    const p = await start(['*.example.test'], () => (answer++ === 0 ? [external as string] : ['127.0.0.1']));
    expect(await p.get('rebind.example.test', portOf(outside))).toContain('outside /x');
    expect(p.asked).toEqual(['rebind.example.test']);
  });

  it('reports a denied connection with its host and port, in the line the server log shows', async () => {
    const p = await start(['api.example.test']);
    await p.get('elsewhere.test', 443);
    expect(p.denied).toEqual([{ host: 'elsewhere.test', port: 443, why: 'is not in network.allow' }]);
    expect(denialLine(p.denied[0] as ProxyDenial)).toBe('[mcpd sandbox] denied connection to elsewhere.test:443: is not in network.allow');
  });
});
