import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ChildProcess } from 'node:child_process';
import { callUnary, createControlClient } from '../../internal/contract/grpc/control-client.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { TestWorld } from '../support/core-process.js';
import {
  INITIALIZE,
  rawPost,
  startHttpGatewayProc,
  startWorldHttpGateway,
  stopProc,
  type HttpGatewayProc,
} from '../support/http-gateway.js';
import { waitFor } from '../support/procs.js';
import { echoServer, everythingServer, profile } from '../support/profiles.js';
import { connect } from 'node:net';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { acceptedConnections, unixSocketsOf } from '../support/unix-connections.js';
import { must } from '../../internal/shared/must.js';

const SESSIONS = 200;
const WATCHED = 'demo://resource/dynamic/text/7';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
type ToolResult = { content: { type: string; text?: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

interface Session {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Prompts of the sampling requests this session was asked to answer. */
  prompts: string[];
}

/** An SDK client on its own HTTP session that answers sampling with `answer-<i>`. */
async function openSession(url: string, i: number): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: `shared-${i}`, version: '1.0.0' }, { capabilities: { sampling: {} } });
  const prompts: string[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, (req) => {
    const first = req.params.messages[0]?.content;
    prompts.push(first && 'text' in first ? String(first.text) : '');
    return { role: 'assistant', content: { type: 'text', text: `answer-${i}` }, model: 'test-model' };
  });
  await client.connect(transport);
  return { client, transport, prompts };
}

/** Runs `fn` over `items`, `width` at a time (200 at once only measures the machine's load). */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map((x, j) => fn(x, i + j)))));
  return out;
}

describe('one core connection for all sessions of an HTTP gateway', () => {
  let world: TestWorld;
  let core: ChildProcess;
  let gw: HttpGatewayProc;
  let sessions: Session[] = [];
  const session = (i: number) => must(sessions[i], `session ${i}`);
  let control = createControlClient('/nonexistent');
  const status = () => callUnary<pb.GetRuntimeStatusRequest, pb.RuntimeStatus>((q, cb) => control.getRuntimeStatus(q, cb), {});
  const coreSessions = async () => (await status()).callers.filter((c) => c.caller === 'web').reduce((n, c) => n + c.sessions, 0);
  const pinned = async () => (await status()).pools.flatMap((p) => p.instances).reduce((n, inst) => n + inst.pinnedKeys, 0);
  const logCount = (event: string) =>
    world.coreLog
      .join('')
      .split('\n')
      .filter((l) => l.includes(`"event":"${event}"`) && l.includes(WATCHED)).length;
  /** The gateway's unix sockets besides its stderr pipe (a socketpair). */
  let gatewayBaseline = 0;

  beforeAll(async () => {
    world = new TestWorld({
      // every: one instance, so all sessions' calls share one server process. samp: one call per
      // instance at a time, the setting under which the core can tell whose sampling request it is.
      'profiles/default.yaml': profile(
        everythingServer('every', { maxInstances: 1, idleSeconds: 300 }),
        everythingServer('samp', { maxInstances: 4, maxConcurrent: 1, idleSeconds: 300 }),
      ),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\n',
    });
    core = await world.startCore();
    control = createControlClient(world.socket);
    gw = await startHttpGatewayProc(
      'web',
      [
        '--socket',
        world.socket,
        '--no-autostart',
        '--core-wait-ms',
        '60000',
        '--http',
        '127.0.0.1:0',
        '--max-sessions',
        String(SESSIONS + 1),
      ],
      // Each SDK session keeps a GET stream open besides its POSTs.
      world.env({ MCPD_HTTP_MAX_CONNECTIONS: '2000' }),
    );
    gatewayBaseline = unixSocketsOf(gw.proc.pid as number);
  });
  afterAll(async () => {
    await inBatches(sessions, 50, (s) => s.client.close().catch(() => {}));
    control.close();
    await stopProc(gw.proc);
    await world.cleanup();
  });

  it(`opens ${SESSIONS} HTTP sessions on one core connection, each its own core session`, async () => {
    await coreSessions(); // the test's own gRPC connection, counted before
    const accepted = acceptedConnections(world.socket);
    sessions = await inBatches(
      Array.from({ length: SESSIONS }, (_, i) => i),
      25,
      (i) => openSession(gw.url, i),
    );
    await waitFor(`the core to hold ${SESSIONS} sessions of caller web`, async () => (await coreSessions()) === SESSIONS, 60_000);
    expect(unixSocketsOf(gw.proc.pid as number) - gatewayBaseline).toBe(1);
    expect(acceptedConnections(world.socket) - accepted).toBe(1);
  });

  it('serves a tools/call with progress on every session', async () => {
    const seen = await inBatches(sessions, 50, async (s) => {
      const progress: number[] = [];
      const r = await s.client.callTool(
        { name: 'every__trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      );
      return { text: textOf(r), progress };
    });
    for (const s of seen) {
      expect(s.text).toContain('Long running operation completed');
      expect(s.progress).toEqual([1, 2]);
    }
  });

  it('delivers a sampling request only to the session whose call it belongs to', async () => {
    const picked = [3, 77, 150, 199];
    const results = await Promise.all(
      picked.map((i) =>
        session(i).client.callTool({ name: 'samp__trigger-sampling-request', arguments: { prompt: `prompt-${i}`, maxTokens: 5 } }),
      ),
    );
    picked.forEach((i, k) => {
      expect(session(i).prompts).toHaveLength(1);
      expect(session(i).prompts[0]).toContain(`prompt-${i}`);
      expect(textOf(must(results[k], `result ${k}`))).toContain(`answer-${i}`);
    });
    expect(sessions.filter((_, i) => !picked.includes(i)).every((s) => s.prompts.length === 0)).toBe(true);
  });

  it('closing one session releases its subscription and pin in the core; the others keep working', async () => {
    const s = session(10);
    const opened = logCount('resource subscription opened downstream');
    const closed = logCount('resource subscription closed downstream');
    await s.client.subscribeResource({ uri: WATCHED });
    await waitFor('the downstream subscription', () => logCount('resource subscription opened downstream') === opened + 1);
    expect(await pinned()).toBeGreaterThan(0);
    await s.transport.terminateSession();
    await s.client.close();
    sessions.splice(10, 1);
    await waitFor('the downstream unsubscribe', () => logCount('resource subscription closed downstream') === closed + 1);
    await waitFor('the pin to go', async () => (await pinned()) === 0);
    await waitFor('the core to drop that session', async () => (await coreSessions()) === SESSIONS - 1);
    expect(textOf(await session(10).client.callTool({ name: 'every__echo', arguments: { message: 'still here' } }))).toContain(
      'still here',
    );
  });

  it('an evicted session releases its subscription too', async () => {
    // A raw session (no GET stream, so idle between requests) that subscribes; the next initialize at
    // the cap evicts it, the only idle one.
    const init = await rawPost(gw.url, HEADERS, INITIALIZE);
    const sid = String(init.headers['mcp-session-id']);
    const withSid = { ...HEADERS, 'mcp-session-id': sid };
    expect((await rawPost(gw.url, withSid, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const closed = logCount('resource subscription closed downstream');
    const sub = await rawPost(gw.url, withSid, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: WATCHED } });
    expect(sub.body).toContain('"result"');
    await waitFor('the pin', async () => (await pinned()) > 0);
    expect(await coreSessions()).toBe(SESSIONS);
    // Fills the cap (SESSIONS - 1 SDK sessions + the raw one + this) and so evicts nobody…
    const filler = await rawPost(gw.url, HEADERS, INITIALIZE);
    expect(filler.status).toBe(200);
    // …this one evicts the oldest idle session: the subscriber (the filler has no core session yet).
    const next = await rawPost(gw.url, HEADERS, INITIALIZE);
    expect(next.status).toBe(200);
    await waitFor('the eviction', () => gw.stderr().includes(`http session ${sid} closed (evicted`));
    await waitFor('the downstream unsubscribe', () => logCount('resource subscription closed downstream') === closed + 1);
    await waitFor('the pin to go', async () => (await pinned()) === 0);
    await waitFor('the core to drop that session', async () => (await coreSessions()) === SESSIONS - 1);
    expect(unixSocketsOf(gw.proc.pid as number) - gatewayBaseline).toBe(1);
  });

  it('after a core restart every live session carries on, again on one connection', async () => {
    const exited = new Promise((r) => core.once('exit', r));
    core.kill('SIGTERM');
    await exited;
    core = await world.startCore();
    await coreSessions(); // the test's own gRPC connection, counted before
    const accepted = acceptedConnections(world.socket);
    const texts = await inBatches(sessions, 50, async (s, i) =>
      textOf(await s.client.callTool({ name: 'every__echo', arguments: { message: `back-${i}` } })),
    );
    texts.forEach((t, i) => expect(t).toContain(`back-${i}`));
    await waitFor(`the new core to hold ${sessions.length} sessions`, async () => (await coreSessions()) === sessions.length);
    expect(unixSocketsOf(gw.proc.pid as number) - gatewayBaseline).toBe(1);
    expect(acceptedConnections(world.socket) - accepted).toBeLessThanOrEqual(1);
    expect(gw.stderr().match(/reconnected to core/g)?.length).toBeGreaterThanOrEqual(sessions.length);
  });

  it('a SIGKILLed gateway leaves nothing behind in the core', async () => {
    const opened = logCount('resource subscription opened downstream');
    await session(0).client.subscribeResource({ uri: WATCHED });
    await waitFor('the downstream subscription', () => logCount('resource subscription opened downstream') === opened + 1);
    const gone = new Promise((r) => gw.proc.once('exit', r));
    gw.proc.kill('SIGKILL');
    await gone;
    await waitFor('the core to drop every session of the gateway', async () => (await coreSessions()) === 0);
    await waitFor('the pin to go', async () => (await pinned()) === 0);
    await waitFor('the downstream unsubscribe', () => logCount('resource subscription closed downstream') >= 3);
  });
});

describe('a slow HTTP session does not hold up the others on the shared core connection', () => {
  let world: TestWorld;
  let gw: HttpGatewayProc;
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'callers.yaml': 'callers: {}\n',
      'runtime.yaml': 'metricsAddress: ""\n',
    });
    await world.startCore();
    gw = await startWorldHttpGateway(world, 'web');
  });
  afterAll(async () => {
    await stopProc(gw.proc);
    await world.cleanup();
  });

  it('a session whose SSE stream is never read does not hold up its neighbour', async () => {
    // The slow one: debug-level logs on a GET stream nobody reads.
    const init = await rawPost(gw.url, HEADERS, INITIALIZE);
    const sid = String(init.headers['mcp-session-id']);
    const withSid = { ...HEADERS, 'mcp-session-id': sid };
    expect((await rawPost(gw.url, withSid, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const level = await rawPost(gw.url, withSid, { jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } });
    expect(level.body).toContain('"result"');
    const { port, hostname } = new URL(gw.url);
    const sock = connect(Number(port), hostname);
    sock.pause(); // never read a byte
    sock.on('error', () => {});
    sock.write(`GET /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${sid}\r\n\r\n`);
    // The neighbour, on the same core connection.
    const transport = new StreamableHTTPClientTransport(new URL(gw.url));
    const neighbour = new Client({ name: 'neighbour', version: '1.0.0' });
    await neighbour.connect(transport);
    try {
      // ~35 MB of server stderr, logged to the slow session, from a caller outside the gateway.
      const busy = await SessionClient.connect(world.socket, { caller: 'busy', pid: process.pid, clientName: 't', previousSessionId: '' });
      const line = 'x'.repeat(7000);
      for (let i = 0; i < 50; i++) {
        await busy.request('tools/call', { name: 'fx__stderr', arguments: { line, repeat: 100 } });
        const r = await neighbour.callTool({ name: 'fx__echo', arguments: { round: i } });
        expect(textOf(r)).toContain(`"round":${i}`);
      }
      busy.close();
      expect(gw.proc.exitCode).toBeNull();
    } finally {
      sock.destroy();
      await neighbour.close();
    }
  });
});
