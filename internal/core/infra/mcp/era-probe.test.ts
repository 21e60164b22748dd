import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeHttp } from './era-probe.js';

const ID = { clientInfo: { name: 'mcpd', version: '0' }, clientCapabilities: {} };
const DISCOVER = { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: 's', version: '1' } };

/** A real HTTP server answering each POST with the next of `answers` (status, JSON body); counts the POSTs. */
async function serve(answers: [number, object][]): Promise<{ url: URL; posts: () => number; server: Server }> {
  let posts = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [status, body] = answers[Math.min(posts++, answers.length - 1)]!;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), posts: () => posts, server };
}

describe('probeHttp: server/discover over Streamable HTTP', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  const refusal = (supported: string[]) => ({
    jsonrpc: '2.0',
    id: 0,
    error: { code: -32022, message: 'Unsupported protocol version', data: { supported, requested: '2026-07-28' } },
  });

  it('asks once more after a -32022 that lists 2026-07-28 as supported, and takes the modern answer', async () => {
    const s = await serve([
      [400, refusal(['2026-07-28'])],
      [200, { jsonrpc: '2.0', id: 0, result: DISCOVER }],
    ]);
    server = s.server;
    const v = await probeHttp({ url: s.url, headers: {}, timeoutMs: 5_000 }, ID);
    expect(v.era).toBe('modern');
    expect(s.posts()).toBe(2);
  });

  it('a -32022 that does not list 2026-07-28, or a second refusal, leaves the server to the 2025 handshake', async () => {
    const other = await serve([[400, refusal(['2025-11-25'])]]);
    server = other.server;
    expect(await probeHttp({ url: other.url, headers: {}, timeoutMs: 5_000 }, ID)).toMatchObject({ era: 'legacy' });
    expect(other.posts()).toBe(1);
    await new Promise<void>((r) => other.server.close(() => r()));

    const stubborn = await serve([[400, refusal(['2026-07-28'])]]);
    server = stubborn.server;
    expect(await probeHttp({ url: stubborn.url, headers: {}, timeoutMs: 5_000 }, ID)).toMatchObject({
      era: 'legacy',
      why: expect.stringContaining('refused 2026-07-28'),
    });
    expect(stubborn.posts()).toBe(2);
  });
});
