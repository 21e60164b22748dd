import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestWorld } from '../support/core-process.js';
import { INITIALIZE, rawPost, sse, startHttpGatewayProc, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { echoServer, profile } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';

type ToolResult = { content: { type: string; text: string }[] };

async function connect(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

function errorOf(body: string): string {
  return (JSON.parse(body) as { error: { message: string } }).error.message;
}

function expectGone(pid: number | undefined): void {
  expect(pid).toBeTypeOf('number');
  expect(() => process.kill(pid as number, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
}

describe('mcpdmcp --http (streamable HTTP gateway)', () => {
  let world: TestWorld;
  const procs: HttpGatewayProc[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    for (const p of procs) await stopProc(p.proc);
    for (const p of procs) expectGone(p.proc.pid);
    await world.cleanup();
  });

  const start = async (args: string[], env: Record<string, string> = {}) => {
    const p = await startHttpGatewayProc('web', ['--socket', world.socket, '--no-autostart', ...args], world.env(env));
    procs.push(p);
    return p;
  };

  it('serves tools to an SDK client on a port-0 loopback bind, one gateway session per HTTP session', async () => {
    const gw = await start(['--http', '127.0.0.1:0']);
    expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(gw.url).not.toMatch(/:0\//);

    const a = await connect(gw.url);
    const b = await connect(gw.url);
    clients.push(a.client, b.client);
    expect(a.client.getServerVersion()?.name).toBe('mcpd');
    expect(a.transport.sessionId).toBeTruthy();
    expect(b.transport.sessionId).not.toBe(a.transport.sessionId);

    expect((await a.client.listTools()).tools.map((t) => t.name)).toContain('fx__echo');
    const r = (await b.client.callTool({ name: 'fx__echo', arguments: { via: 'http' } })) as ToolResult;
    expect(r.content[0]?.text).toContain('http');

    // Each HTTP session is its own core session: ending one leaves the other working.
    const ended = a.transport.sessionId as string;
    await a.transport.terminateSession();
    await a.client.close();
    const again = (await b.client.callTool({ name: 'fx__echo', arguments: { still: 'here' } })) as ToolResult;
    expect(again.content[0]?.text).toContain('here');
    // Logged before the DELETE is answered; the pipe may deliver it a moment later.
    await waitFor('the gateway to log the DELETE', () => gw.stderr().includes(`http session ${ended} closed (client sent DELETE)`));
    expect(gw.stderr().match(/connected to core .* as web/g)?.length).toBe(2);

    const stale = await rawPost(gw.url, { 'mcp-session-id': ended }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(stale.status).toBe(404);
  });

  it('gives SSE events ids and replays a dropped stream from Last-Event-ID (resumability)', async () => {
    const gw = await start(['--http', '127.0.0.1:0']);
    const version = '2025-11-25'; // the first protocol version whose clients take priming events
    const init = await sse(gw.url, 'POST', {}, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } }, (e) =>
      e.some((x) => x.data),
    );
    const session = String(init.headers['mcp-session-id']);
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': version };
    await sse(gw.url, 'POST', headers, { jsonrpc: '2.0', method: 'notifications/initialized' }, () => false);
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'fx__echo', arguments: { resumed: true } } };
    const first = await sse(gw.url, 'POST', headers, call, (e) => e.some((x) => x.data.includes('"id":7')));
    // A priming event (id, retry hint, no data) opens the stream; the result carries an id too.
    expect(first.events[0]).toEqual({ id: expect.any(String), retry: '1000', data: '' });
    const result = first.events.find((x) => x.data.includes('"id":7'));
    expect(result?.id).toBeTruthy();
    // A client that lost the stream after the priming event asks for the rest and gets the result again.
    const replay = await sse(gw.url, 'GET', { ...headers, 'last-event-id': first.events[0]?.id as string }, undefined, (e) =>
      e.some((x) => x.data.includes('"id":7')),
    );
    const replayed = replay.events.find((x) => x.data.includes('"id":7'));
    expect(replayed).toEqual(result);
    expect(JSON.parse(replayed?.data ?? '{}').result.structuredContent).toEqual({ resumed: true });
  });

  it('rejects foreign Host and Origin headers (DNS rebinding) and accepts loopback ones', async () => {
    const gw = await start(['--http', '127.0.0.1:0']);
    const port = new URL(gw.url).port;

    const evilHost = await rawPost(gw.url, { host: `evil.example.com:${port}` }, INITIALIZE);
    expect(evilHost.status).toBe(403);
    expect(errorOf(evilHost.body)).toMatch(/Host header "evil\.example\.com:\d+" is not this gateway's loopback address/);

    const evilOrigin = await rawPost(gw.url, { host: `127.0.0.1:${port}`, origin: 'http://evil.example.com' }, INITIALIZE);
    expect(evilOrigin.status).toBe(403);
    expect(errorOf(evilOrigin.body)).toMatch(/Origin "http:\/\/evil\.example\.com" is not a loopback origin/);

    // Another local web server's page: loopback, but not this listener's port (the /metrics rule).
    const otherPort = await rawPost(gw.url, { host: `127.0.0.1:${port}`, origin: `http://localhost:${Number(port) + 1}` }, INITIALIZE);
    expect(otherPort.status).toBe(403);
    expect(errorOf(otherPort.body)).toMatch(/is another port than this listener's/);
    const otherHostPort = await rawPost(gw.url, { host: `127.0.0.1:${Number(port) + 1}` }, INITIALIZE);
    expect(otherHostPort.status).toBe(403);

    const good = await rawPost(gw.url, { host: `localhost:${port}`, origin: `http://localhost:${port}` }, INITIALIZE);
    expect(good.status).toBe(200);
    expect(good.headers['mcp-session-id']).toBeTruthy();
    expect(good.body).toContain('"serverInfo"');
  });

  it('refuses to start on a non-loopback address without a token', async () => {
    const failure = await start(['--http', '0.0.0.0:0']).then(
      () => undefined,
      (e: Error & { code?: number; stderr?: string }) => e,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(
      /refusing to serve MCP on non-loopback address 0\.0\.0\.0 without a token.*--token TOKEN.*MCPD_HTTP_TOKEN/s,
    );
  });

  it('with a token, answers 401 to a missing or wrong bearer and serves the right one', async () => {
    const token = 'tok-' + Math.random().toString(36).slice(2);
    const gw = await start(['--http', '0.0.0.0:0'], { MCPD_HTTP_TOKEN: token });
    const url = gw.url.replace('0.0.0.0', '127.0.0.1');

    const none = await rawPost(url, {}, INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await rawPost(url, { authorization: `Bearer ${token}x` }, INITIALIZE);
    expect(wrong.status).toBe(401);
    await expect(connect(url, { Authorization: 'Bearer nope' })).rejects.toThrow(/401|Unauthorized/);

    const ok = await connect(url, { Authorization: `Bearer ${token}` });
    clients.push(ok.client);
    expect((await ok.client.listTools()).tools.map((t) => t.name)).toContain('fx__echo');
  });
});
