import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { TestWorld } from '../support/core-process.js';
import { INITIALIZE, rawPost, startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';
import { must } from '../../internal/shared/must.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const UNREAD_LIMIT = 256 * 1024;
// Rounds of 100 log lines of 7,000 bytes: 0.7 MB each.
const ROUNDS = 300;
type ToolResult = { content: { type: string; text?: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** Resident memory of a live process, from /proc. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

/** Opens the session's GET SSE stream on a raw socket, reads up to the end of the headers, then stops reading. */
async function openUnreadStream(url: string, sid: string): Promise<Socket> {
  const { port, hostname } = new URL(url);
  const sock = connect(Number(port), hostname);
  sock.on('error', () => {});
  let head = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      sock.off('data', onData);
      sock.pause(); // from here on, never read a byte
      resolve();
    };
    sock.on('data', onData);
    sock.once('close', () => reject(new Error(`the GET stream closed before its headers; got: ${head}`)));
    sock.write(`GET /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${sid}\r\n\r\n`);
  });
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  return sock;
}

// The SDK queues SSE events in a web ReadableStream that @hono/node-server drains only as fast as the socket
// takes them: a bound on the Node response alone never saw that backlog (found with 35 MB of logs).
describe('an HTTP session whose GET SSE stream is never read, through the real SDK transport', () => {
  let world: TestWorld;
  let gw: HttpGatewayProc;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\n',
    });
    await world.startCore();
    gw = await startWorldHttpGateway(world, 'web', [], { MCPD_HTTP_SSE_UNREAD_BYTES: String(UNREAD_LIMIT) });
  });
  afterAll(async () => {
    await stopProc(gw.proc);
    await world.cleanup();
  });

  it('is closed past the unread bound while ~200 MB of logs flow, and the gateway stays small', { timeout: 180_000 }, async () => {
    const pid = must(gw.proc.pid, 'the gateway pid');
    // The neighbour: an SDK client on its own session, served throughout.
    const neighbour = new Client({ name: 'neighbour', version: '1.0.0' });
    await neighbour.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
    const busy = await SessionClient.connect(world.socket, { caller: 'busy', pid: process.pid, clientName: 't', previousSessionId: '' });
    let sock: Socket | undefined;
    try {
      // Warm up (server running, listings cached) before the baseline.
      await busy.request('tools/call', { name: 'fx__stderr', arguments: { line: 'warm', repeat: 1 } });
      expect(textOf(await neighbour.callTool({ name: 'fx__echo', arguments: { round: -1 } }))).toContain('"round":-1');

      const init = await rawPost(gw.url, HEADERS, INITIALIZE);
      const sid = String(init.headers['mcp-session-id']);
      const withSid = { ...HEADERS, 'mcp-session-id': sid };
      expect((await rawPost(gw.url, withSid, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      const level = await rawPost(gw.url, withSid, { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } });
      expect(level.body).toContain('"result"');
      sock = await openUnreadStream(gw.url, sid);
      const before = rssMb(pid);

      // ~200 MB of server stderr, each line a debug log for the slow session; the neighbour is served each round.
      const line = 'x'.repeat(7000);
      for (let i = 0; i < ROUNDS; i++) {
        await busy.request('tools/call', { name: 'fx__stderr', arguments: { line, repeat: 100 } });
        expect(textOf(await neighbour.callTool({ name: 'fx__echo', arguments: { round: i } }))).toContain(`"round":${i}`);
      }
      const grown = rssMb(pid) - before;
      // Unbounded, nothing ever closes the stream: this line is the bound at work.
      await waitFor('the gateway to close the unread SSE stream', () =>
        new RegExp(`http session ${sid}: SSE stream closed, its client left \\d+ bytes unread`).test(gw.stderr()),
      );
      expect(gw.proc.exitCode).toBeNull();
      // The session lives on: the client may come back and resume.
      expect((await rawPost(gw.url, withSid, { jsonrpc: '2.0', id: 3, method: 'ping' })).body).toContain('"result"');
      // Measured on a loaded two-core machine: unbounded, the gateway holds every event and grew 138 MB with
      // 70 MB of logs, 232 MB with 140 MB (~330 MB expected here); bounded, 80-115 MB: the 256 KiB limit,
      // the 1,000-event replay store (~7 MB here) and garbage not yet collected, which does not scale with the flood.
      expect(grown).toBeLessThan(200);
    } finally {
      sock?.destroy();
      busy.close();
      await neighbour.close();
    }
  });
});
