import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { INITIALIZE, rawPost, startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { must } from '../../internal/shared/must.js';

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the HTTP gateway has limits', () => {
  let world: TestWorld;
  let corePid: number;
  let gw: HttpGatewayProc;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx')),
      'callers.yaml': 'callers: {}\n',
    });
    corePid = (await world.startCore()).pid!;
    gw = await startWorldHttpGateway(world, 'alice', ['--max-sessions', '5'], {
      MCPD_HTTP_INIT_TIMEOUT_MS: '60000',
      MCPD_HTTP_REQUEST_TIMEOUT_MS: '1500',
      MCPD_HTTP_HEADERS_TIMEOUT_MS: '1000',
    });
  });
  afterAll(async () => {
    await stopProc(gw.proc);
    await world.cleanup();
  });

  it('caps sessions, closing the oldest idle one, so a flood of initialize requests cannot grow the core', async () => {
    const before = fds(corePid);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await rawPost(gw.url, HEADERS, INITIALIZE);
      expect(r.status).toBe(200);
      const id = String(r.headers['mcp-session-id']);
      ids.push(id);
      // A finished initialization is what makes a session take its core link.
      const n = await rawPost(gw.url, { ...HEADERS, 'mcp-session-id': id }, { jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(n.status).toBe(202);
    }
    // Each session holds a core link; at most 5 stay open.
    await waitFor('the core to hold at most 5 more connections (40 unbounded)', () => fds(corePid) - before <= 5 + 5);
    const first = await rawPost(
      gw.url,
      { ...HEADERS, 'mcp-session-id': must(ids[0], 'the first session') },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    );
    expect(first.status).toBe(404);
    const last = await rawPost(
      gw.url,
      { ...HEADERS, 'mcp-session-id': must(ids[39], 'the 40th session') },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    );
    expect(last.status).toBe(200);
    expect(gw.stderr()).toMatch(/evicted: the gateway holds at most 5 sessions/);
  });

  it('drops a request whose body trickles in past the request timeout', async () => {
    const { port } = new URL(gw.url);
    const sock = connect(Number(port), '127.0.0.1');
    let answer = '';
    sock.setEncoding('utf8').on('data', (d: string) => (answer += d));
    const closed = new Promise<void>((r) => sock.once('close', () => r()));
    sock.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe('sessions that never finish initializing expire', () => {
  it('closes a session that sent nothing after initialize', async () => {
    const world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx')), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    const gw = await startWorldHttpGateway(world, 'alice', [], { MCPD_HTTP_INIT_TIMEOUT_MS: '300' });
    try {
      const r = await rawPost(gw.url, HEADERS, INITIALIZE);
      expect(r.status).toBe(200);
      await waitFor('the half-open session to be closed', () => gw.stderr().includes('nothing after initialize for 300 ms'));
      const again = await rawPost(
        gw.url,
        { ...HEADERS, 'mcp-session-id': String(r.headers['mcp-session-id']) },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      );
      expect(again.status).toBe(404);
    } finally {
      await stopProc(gw.proc);
      await world.cleanup();
    }
  });
});
