import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

// The 2026-07-28 HTTP face under clients that share it (docs/security.md,
// "The 2026-07-28 HTTP face: what each guard is tested by"): a cancel reaches only its own client's request, and
// listen streams and waiting requests are bounded so that no client can take every lane.

const V = '2026-07-28';
const meta = (client: string) => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
});

type Json = Record<string, unknown>;

/** One 2026 request held open by the test: its status and body as they come, and a way to leave. */
interface Held {
  req: ClientRequest;
  /** Resolves with the status once the headers arrived. */
  status: Promise<number>;
  /** Everything read so far. */
  text: () => string;
  /** Resolves when the server ended the response (or it closed). */
  ended: Promise<void>;
}

function post(url: string, body: Json): Held {
  const u = new URL(url);
  const name = (body.params as Json | undefined)?.name;
  let text = '';
  let res: IncomingMessage | undefined;
  let onStatus!: (n: number) => void;
  let onEnd!: () => void;
  const status = new Promise<number>((r) => (onStatus = r));
  const ended = new Promise<void>((r) => (onEnd = r));
  const req = request(
    {
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      // Each request on a connection of its own, as concurrent requests of one HTTP client go.
      agent: false,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V,
        'mcp-method': String(body.method ?? ''),
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
    },
    (r) => {
      res = r;
      onStatus(r.statusCode ?? 0);
      r.setEncoding('utf8');
      r.on('data', (d: string) => (text += d));
      r.on('end', onEnd);
      r.on('close', onEnd);
    },
  );
  req.on('error', () => onEnd());
  req.on('close', () => (res ? undefined : onEnd()));
  req.end(JSON.stringify({ jsonrpc: '2.0', ...body }));
  return { req, status, text: () => text, ended };
}

/** The JSON-RPC message an answer ends with (the last SSE event, or the plain body). */
function answerOf(text: string): Json {
  const body = text.includes('data: ') ? text.trimEnd().split('data: ').pop()! : text;
  return JSON.parse(body) as Json;
}

async function answer(h: Held): Promise<{ status: number; message: Json }> {
  const status = await h.status;
  await h.ended;
  return { status, message: answerOf(h.text()) };
}

const callTool = (id: number, name: string, args: Json, client: string): Json => ({
  id,
  method: 'tools/call',
  params: { name, arguments: args, _meta: meta(client) },
});

describe('mcpdmcp --http, 2026-07-28: cancels are scoped, listens and waits are bounded', () => {
  let world: TestWorld;
  let gw: HttpGatewayProc;
  let dir: string;
  // 6 lanes: at most 3 listen streams, 2 per client; a request waits for a lane at most 4 s.
  const env = { MCPD_HTTP_MAX_LISTENS: '3', MCPD_HTTP_MAX_LISTENS_PER_CLIENT: '2', MCPD_HTTP_LANE_WAIT_MS: '4000' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpd-bounds-'));
    world = new TestWorld({
      'profiles/default.yaml': `namespace: { mode: never }\n${profile(echoServer('fx', { maxConcurrent: 8, maxInstances: 1 }, { FIXTURE_FAULT_TOOLS: '1' }))}`,
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    gw = await startWorldHttpGateway(world, 'alice', ['--max-sessions', '6'], env);
  });
  afterAll(async () => {
    if (gw) await stopProc(gw.proc);
    await world.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const gate = (name: string) => join(dir, name);
  const open = (name: string) => writeFileSync(gate(name), '');
  const serverSaw = (line: string) => world.coreLog.join('').split(line).length - 1;

  it("another client's notifications/cancelled for the same id does not cancel a call, which is answered", async () => {
    const a = post(gw.url, callTool(42, 'wait', { path: gate('a42') }, 'client-a'));
    await waitFor('the call at the server', () => serverSaw(`fixture: waiting ${gate('a42')}`) > 0);
    // Client B counts from the same number and cancels "its" 42, on a connection of its own.
    const b = post(gw.url, { method: 'notifications/cancelled', params: { requestId: 42, reason: 'mine' } });
    expect(await b.status).toBe(202);
    await b.ended;
    open('a42');
    const r = await answer(a);
    expect(r.status).toBe(200);
    expect(r.message).toMatchObject({ id: 42, result: { content: [{ type: 'text', text: 'released' }] } });
    expect(serverSaw('fixture: cancelled wait')).toBe(0);
  });

  it('a cancel on the connection of the request (pipelined behind it) cancels it, and the request is still answered', async () => {
    const u = new URL(gw.url);
    const http = (body: Json, name?: string) => {
      const text = JSON.stringify({ jsonrpc: '2.0', ...body });
      const head = [
        `POST ${u.pathname} HTTP/1.1`,
        `Host: ${u.host}`,
        'Content-Type: application/json',
        'Accept: application/json, text/event-stream',
        `Mcp-Protocol-Version: ${V}`,
        `Mcp-Method: ${String(body.method)}`,
        ...(name ? [`Mcp-Name: ${name}`] : []),
        `Content-Length: ${Buffer.byteLength(text)}`,
      ];
      return `${head.join('\r\n')}\r\n\r\n${text}`;
    };
    const socket = connect(Number(u.port), u.hostname);
    let read = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (read += d));
    try {
      socket.write(http(callTool(7, 'wait', { path: gate('p7') }, 'client-p'), 'wait'));
      await waitFor('the call at the server', () => serverSaw(`fixture: waiting ${gate('p7')}`) > 0);
      socket.write(http({ method: 'notifications/cancelled', params: { requestId: 7, reason: 'enough' } }));
      await waitFor('both answers on the connection', () => read.includes('HTTP/1.1 202'));
      expect(read).toMatch(/"id":7,"error":\{"code":-32000,"message":"Request cancelled: enough"\}/);
      expect(read.indexOf('"id":7')).toBeLessThan(read.indexOf('HTTP/1.1 202'));
      await waitFor('the server saw the cancel', () => serverSaw('fixture: cancelled wait') > 0);
    } finally {
      socket.destroy();
    }
  });

  it('caps listen streams per client and in total, below the lanes, so other requests are still served', async () => {
    const listen = (id: number, client: string) =>
      post(gw.url, { id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta(client) } });
    const acknowledged = async (h: Held) => {
      expect(await h.status).toBe(200);
      await waitFor('the listen acknowledged', () => h.text().includes('notifications/subscriptions/acknowledged'));
    };
    const x1 = listen(1, 'client-x');
    const x2 = listen(2, 'client-x');
    await acknowledged(x1);
    await acknowledged(x2);
    const x3 = await answer(listen(3, 'client-x'));
    expect(x3.status).toBe(429);
    expect(x3.message).toMatchObject({ id: 3, error: { code: -32000 } });
    expect(String((x3.message.error as Json).message)).toContain('at most 2 subscriptions/listen streams per client');
    const y1 = listen(4, 'client-y');
    await acknowledged(y1);
    const z1 = await answer(listen(5, 'client-z'));
    expect(z1.status).toBe(503);
    expect(String((z1.message.error as Json).message)).toContain('at most 3 subscriptions/listen streams');
    // Three lanes are still free for everything else.
    const list = await answer(post(gw.url, { id: 6, method: 'tools/list', params: { _meta: meta('client-w') } }));
    expect(list.status).toBe(200);
    expect(list.message.result).toMatchObject({ resultType: 'complete' });

    const closedBefore = gw.stderr().split('subscriptions/listen').length;
    for (const h of [x1, x2, y1]) h.req.destroy();
    await waitFor('the three streams closed', () => gw.stderr().split('subscriptions/listen').length - closedBefore >= 3);
  });

  it('a request that finds every lane taken waits a bounded time, then gets 503', async () => {
    const held = [1, 2, 3, 4, 5, 6].map((i) => post(gw.url, callTool(100 + i, 'wait', { path: gate(`q${i}`) }, 'client-q')));
    for (let i = 1; i <= 6; i++) await waitFor(`call ${i} at the server`, () => serverSaw(`fixture: waiting ${gate(`q${i}`)}`) > 0);
    const late = await answer(post(gw.url, { id: 200, method: 'tools/list', params: { _meta: meta('client-late') } }));
    expect(late.status).toBe(503);
    expect(late.message).toMatchObject({ id: 200, error: { code: -32000 } });
    expect(String((late.message.error as Json).message)).toMatch(/all 6 lanes .* busy for 4000 ms/);
    for (let i = 1; i <= 6; i++) open(`q${i}`);
    for (const h of held) expect((await answer(h)).status).toBe(200);
  });

  it('a waiting request whose client left is dropped and never runs', async () => {
    const held = [1, 2, 3, 4, 5, 6].map((i) => post(gw.url, callTool(300 + i, 'wait', { path: gate(`w${i}`) }, 'client-w')));
    for (let i = 1; i <= 6; i++) await waitFor(`call ${i} at the server`, () => serverSaw(`fixture: waiting ${gate(`w${i}`)}`) > 0);
    // A progress token makes the answer a stream whose headers come at once: the request is then queued.
    const ghost = post(gw.url, {
      id: 400,
      method: 'tools/call',
      params: { name: 'stderr', arguments: { line: 'ghost-line-400' }, _meta: { ...meta('client-g'), progressToken: 'g' } },
    });
    expect(await ghost.status).toBe(200);
    const dropsBefore = gw.stderr().split('left while waiting for a lane').length;
    ghost.req.destroy();
    await waitFor('the gateway dropped the waiter', () => gw.stderr().split('left while waiting for a lane').length > dropsBefore);
    for (let i = 1; i <= 6; i++) open(`w${i}`);
    for (const h of held) expect((await answer(h)).status).toBe(200);
    const after = await answer(post(gw.url, callTool(401, 'stderr', { line: 'after-line-401' }, 'client-g')));
    expect(after.status).toBe(200);
    await waitFor('the later call at the server', () => serverSaw('after-line-401') > 0);
    expect(serverSaw('ghost-line-400')).toBe(0);
  });
});
