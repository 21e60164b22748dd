import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { io as ioClient } from 'socket.io-client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary } from '../../internal/contract/grpc/control-client.js';
import { SessionClient } from '../../internal/contract/session/session-client.js';
import { TestWorld } from '../support/core-process.js';
import { freePort } from '../support/free-port.js';
import { rawPost, startWorldHttpGateway, stopProc } from '../support/http-gateway.js';
import { DIST, FIXTURES, MCPDMCP } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { echoServer, everythingServer, profile, server, windowServer } from '../support/profiles.js';
import { TestAgent } from '../support/smcp-agent-peer.js';
import { computerJoined } from '../support/smcp-core-computer.js';
import { startSmcpProc } from '../support/smcp-server-proc.js';

// With a warm metadata cache (decisions 32 and 56), a client that connects and lists — on any face, in either era —
// starts no server; the context channels are decided from the cached lists too. Start causes in the core's
// status say what started a server, so each face is checked by them on a fresh core.

const IDLE = { idleSeconds: 300 };
const DOCS_SERVER = join(DIST, 'cmd/mcpd-docs/main.js');
const V2026 = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V2026, 'io.modelcontextprotocol/clientCapabilities': {} };
const LISTS = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list'] as const;

/** Tools only (echo), a 2025 server with everything, a 2026-07-28 server, and the two context channels' servers. */
const SERVERS = {
  echo: echoServer('echo', IDLE),
  every: everythingServer('every', IDLE),
  modern: server('modern', [process.execPath, `${FIXTURES}/servers/era2026.mjs`], IDLE),
  docs: server('docs', [process.execPath, DOCS_SERVER, '--host', 'docs', join(FIXTURES, 'docs')], IDLE),
  win: windowServer('win', 'editor', IDLE),
};

/**
 * `default` (every caller but one) has the Desktop's and the Finder's servers; `plain`, the SMCP Computer's
 * caller, does not: a Computer follows its caller's Desktop and Finder, whose contents (windows, documents)
 * are what those servers are started for.
 */
const STORE = (echoEnv: Record<string, string> = {}) => ({
  'profiles/default.yaml': profile(echoServer('echo', IDLE, echoEnv), SERVERS.every, SERVERS.modern, SERVERS.docs, SERVERS.win),
  'profiles/plain.yaml': profile(echoServer('echo', IDLE, echoEnv), SERVERS.every, SERVERS.modern),
  'callers.yaml': 'callers:\n  computer: plain\n',
});

/** What the dashboard's watches push (the fields the test reads). */
interface Pushed {
  tools?: { name: string }[];
  resources?: { uri: string }[];
}

interface CacheFile {
  tools: unknown[];
  capabilities?: Record<string, unknown>;
  lists?: Record<string, unknown[]>;
}

function cacheDir(w: TestWorld): string {
  return join(w.configDir, '.mcpd-state', 'metadata-cache');
}

function cacheFiles(w: TestWorld): Map<string, string> {
  const out = new Map<string, string>();
  try {
    for (const n of readdirSync(cacheDir(w))) if (n.endsWith('.json')) out.set(n, readFileSync(join(cacheDir(w), n), 'utf8'));
  } catch {
    // no cache yet
  }
  return out;
}

/** Every file holds the lists its server's capabilities call for. */
function cacheComplete(w: TestWorld, servers: number): boolean {
  const files = [...cacheFiles(w).values()].map((t) => JSON.parse(t) as CacheFile);
  if (files.length !== servers) return false;
  return files.every((f) => {
    const needs = [
      ...(f.capabilities?.resources ? ['resources/list', 'resources/templates/list'] : []),
      ...(f.capabilities?.prompts ? ['prompts/list'] : []),
    ];
    return needs.every((m) => Array.isArray(f.lists?.[m]));
  });
}

/** Server name → start causes of its instances, for the servers that have any. */
async function startCauses(w: TestWorld): Promise<Record<string, string[]>> {
  const st = await w.calls().status();
  const out: Record<string, string[]> = {};
  for (const p of st.pools)
    if (p.instances.length > 0)
      out[[...new Set(p.references.map((r) => r.split('/')[1]))].join(',')] = p.instances.map((i) => i.startCause);
  return out;
}

async function stopCore(w: TestWorld): Promise<void> {
  for (const c of w.clients.splice(0)) await c.close().catch(() => {});
  for (const core of w.cores) if (core.exitCode === null && core.signalCode === null) core.kill('SIGTERM');
  await waitFor('the core and its servers to exit', () => w.pids().length === 0);
}

/** Lists every area for both profiles over gRPC, so the cache holds every list; then stops the core. */
async function warmCache(w: TestWorld): Promise<void> {
  await w.startCore();
  for (const caller of ['anyone', 'computer']) await grpcLists(w, caller);
  await waitFor('every cache file to hold its lists', () => cacheComplete(w, 5));
  await stopCore(w);
}

type Names = Record<(typeof LISTS)[number], string[]>;

/** What a caller of `default` lists: each server's items, and the context channels from the cached lists. */
function expectMainListing(n: Names): void {
  expect(n['tools/list']).toEqual(expect.arrayContaining(['mcpd_finder', 'echo__echo', 'every__echo', 'modern__echo']));
  expect(n['resources/list']).toEqual(expect.arrayContaining(['mcpd://desktop', 'mcpd://finder']));
  expect(n['resources/list'].some((u) => u.startsWith('window://'))).toBe(true);
  expect(n['resources/list'].some((u) => u.startsWith('dpe://docs/'))).toBe(true);
  expect(n['resources/list'].some((u) => u.startsWith('demo://'))).toBe(true);
  expect(n['resources/templates/list'].some((t) => t.startsWith('mcpd://finder{'))).toBe(true);
  expect(n['prompts/list'].some((p) => p.startsWith('every__'))).toBe(true);
}

const pick = {
  tools: (r: { tools?: { name: string }[] }) => (r.tools ?? []).map((t) => t.name),
  resources: (r: { resources?: { uri: string }[] }) => (r.resources ?? []).map((x) => x.uri),
  templates: (r: { resourceTemplates?: { uriTemplate: string }[] }) => (r.resourceTemplates ?? []).map((x) => x.uriTemplate),
  prompts: (r: { prompts?: { name: string }[] }) => (r.prompts ?? []).map((p) => p.name),
};

/** The four lists through a request function answering MCP results. */
async function mcpLists(request: (method: string) => Promise<unknown>): Promise<Names> {
  const [t, r, rt, p] = await Promise.all(LISTS.map((m) => request(m)));
  return {
    'tools/list': pick.tools(t as never),
    'resources/list': pick.resources(r as never),
    'resources/templates/list': pick.templates(rt as never),
    'prompts/list': pick.prompts(p as never),
  };
}

async function grpcLists(w: TestWorld, caller: string): Promise<Names> {
  const c = w.control();
  const q = { caller, cursor: '', pageSize: 0 };
  const [t, r, rt, p] = await Promise.all([
    callUnary<pb.ListToolsRequest, pb.ListToolsResponse>((x, cb) => c.listTools(x, cb), q),
    callUnary<pb.ListResourcesRequest, pb.ListResourcesResponse>((x, cb) => c.listResources(x, cb), q),
    callUnary<pb.ListResourceTemplatesRequest, pb.ListResourceTemplatesResponse>((x, cb) => c.listResourceTemplates(x, cb), q),
    callUnary<pb.ListPromptsRequest, pb.ListPromptsResponse>((x, cb) => c.listPrompts(x, cb), q),
  ]);
  return {
    'tools/list': t.tools.map((x) => x.name),
    'resources/list': r.resources.map((x) => x.uri),
    'resources/templates/list': rt.templates.map((x) => x.uriTemplate),
    'prompts/list': p.prompts.map((x) => x.name),
  };
}

/** `mcpdmcp` on stdio driven with raw lines (no SDK client between): `request` waits for the answer by id. */
function rawStdio(w: TestWorld, caller: string) {
  const proc = spawn(process.execPath, [MCPDMCP, caller, '--socket', w.socket, '--no-autostart'], {
    env: w.env(),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const answers = new Map<number, (m: { result?: unknown; error?: unknown }) => void>();
  let buf = '';
  let id = 0;
  proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, nl)) as { id?: number; result?: unknown; error?: unknown };
      buf = buf.slice(nl + 1);
      if (typeof m.id === 'number') answers.get(m.id)?.(m);
    }
  });
  const request = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const mine = ++id;
      answers.set(mine, (m) => (m.error ? reject(new Error(`${method}: ${JSON.stringify(m.error)}`)) : resolve(m.result)));
      proc.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
    });
  return { proc, request, notify: (method: string) => proc.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`) };
}

describe('connecting and listing wake nothing (warm metadata cache)', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.cleanup();
    world = undefined;
  });

  it('every face, both eras: initialize and the four lists start no server; the context channels come from the cached lists', async () => {
    const w = (world = new TestWorld(STORE()));
    await warmCache(w);
    const faces: Record<string, () => Promise<void>> = {
      'stdio 2025-11-25 (initialize only)': async () => {
        const g = rawStdio(w, 'anyone');
        try {
          await g.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
          g.notify('notifications/initialized');
          // The session is open once the gateway answers from the core: a ping goes through the core.
          await g.request('ping');
          // A listing through the same session, answered after everything the session's start set off.
          expect(pick.tools((await g.request('tools/list')) as never)).toContain('mcpd_finder');
        } finally {
          await stopProc(g.proc);
        }
      },
      'stdio 2025-11-25 (SDK client)': async () => {
        const c = await w.gateway('anyone', ['--no-autostart']);
        expectMainListing(await mcpLists(sdkList(c)));
      },
      'stdio 2026-07-28': async () => {
        const g = rawStdio(w, 'anyone');
        try {
          await g.request('server/discover', { _meta: META });
          expectMainListing(await mcpLists((m) => g.request(m, { _meta: META })));
        } finally {
          await stopProc(g.proc);
        }
      },
      'HTTP 2025-11-25 and 2026-07-28': async () => {
        const gw = await startWorldHttpGateway(w, 'anyone');
        const client = new Client({ name: 'http', version: '1' });
        try {
          await client.connect(new StreamableHTTPClientTransport(new URL(gw.url)));
          expectMainListing(await mcpLists(sdkList(client)));
          const modern = async (m: string) => {
            const r = await rawPost(
              gw.url,
              { 'mcp-protocol-version': V2026, 'mcp-method': m },
              { jsonrpc: '2.0', id: 1, method: m, params: { _meta: META } },
            );
            const body = r.body.startsWith('event:') ? (r.body.split('data: ').pop() as string) : r.body;
            return (JSON.parse(body) as { result: unknown }).result;
          };
          expectMainListing(await mcpLists(modern));
        } finally {
          await client.close();
          await stopProc(gw.proc);
        }
      },
      gRPC: async () => {
        expectMainListing(await grpcLists(w, 'anyone'));
      },
      'the Session (framed, as a gateway speaks it)': async () => {
        const s = await SessionClient.connect(w.socket, { caller: 'anyone', pid: process.pid, clientName: 'test', previousSessionId: '' });
        try {
          expectMainListing(await mcpLists((m) => s.request(m, {})));
        } finally {
          s.close();
        }
      },
    };
    for (const [face, run] of Object.entries(faces)) {
      await w.startCore();
      await run();
      expect({ face, started: await startCauses(w) }).toEqual({ face, started: {} });
      await stopCore(w);
    }

    // What a call needs still starts: the call's own server, and only it, as a call.
    await w.startCore();
    const c = await w.gateway('anyone', ['--no-autostart']);
    await c.callTool({ name: 'echo__echo', arguments: { said: 'hi' } });
    expect(await startCauses(w)).toEqual({ echo: ['call'] });
  }, 300_000);

  it('the dashboard and an SMCP Computer connect, watch and list without starting a server', async () => {
    const w = (world = new TestWorld(STORE()));
    await warmCache(w);

    const port = await freePort();
    w.write('runtime.yaml', `metricsAddress: 127.0.0.1:${port}\n`);
    await w.startCore();
    const { token } = JSON.parse(readFileSync(join(dirname(w.socket), 'dashboard.json'), 'utf8')) as { token: string };
    const page = ioClient(`http://127.0.0.1:${port}/app`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { authorization: `Bearer ${token}` },
    });
    try {
      const pushed = new Map<string, Pushed>();
      for (const kind of ['tools', 'resources', 'prompts'])
        page.on(kind, (v: Pushed) => {
          pushed.set(kind, v);
        });
      await new Promise<void>((resolve, reject) => {
        page.once('connect', resolve);
        page.once('connect_error', reject);
      });
      const ask = (event: string, args: object) =>
        page.timeout(60_000).emitWithAck(event, args) as Promise<{ ok: boolean; error?: string }>;
      expect((await ask('hello', {})).ok).toBe(true);
      for (const kind of ['tools', 'resources', 'prompts']) expect((await ask('watch', { kind, caller: 'anyone' })).ok).toBe(true);
      await waitFor('the three watches to push their first snapshot', () => pushed.size === 3);
      expect(pushed.get('tools')?.tools?.map((t) => t.name)).toContain('mcpd_finder');
      expect(pushed.get('resources')?.resources?.map((r) => r.uri)).toEqual(expect.arrayContaining(['mcpd://desktop', 'mcpd://finder']));
      expect(await startCauses(w)).toEqual({});
    } finally {
      page.close();
    }
    await stopCore(w);

    const key = 'smcp-wake-key-0123456789';
    const router = await startSmcpProc([], w.env({ SMCP_API_KEY: key }));
    let agent: TestAgent | undefined;
    try {
      w.write(
        'runtime.yaml',
        `metricsAddress: ""\nsmcp:\n  url: ${router.url}\n  apiKey: \${SMCP_API_KEY}\n  office: office-1\n  computers:\n    - { name: laptop, caller: computer }\n`,
      );
      await w.startCore({ SMCP_API_KEY: key });
      await computerJoined(w.control(), 'laptop');
      agent = await TestAgent.join(router.url, key, 'office-1');
      const tools = await agent.request<{ tools: { name: string }[] }>('client:get_tools', 'laptop');
      expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo__echo', 'every__echo', 'modern__echo']));
      // The Computer follows its caller's Desktop and Finder from its join; asking for them takes the same
      // path, decided from the cached lists (no server of `plain` lists a window or a document).
      expect(await agent.request<{ desktops: unknown[] }>('client:get_desktop', 'laptop')).toMatchObject({ desktops: [] });
      expect(await agent.request<{ documents: unknown[] }>('client:get_finder', 'laptop')).toMatchObject({ documents: [] });
      expect(await startCauses(w)).toEqual({});
    } finally {
      agent?.close();
      await router.stop();
      await stopCore(w);
    }
  }, 240_000);

  it('a cold cache lists within the budget, then writes the cache; a changed spec invalidates only its own entry', async () => {
    const w = (world = new TestWorld(STORE()));
    await w.startCore();
    const c = await w.gateway('anyone', ['--no-autostart']);
    expectMainListing(await mcpLists(sdkList(c)));
    // A first listing starts each server once, for its metadata, never as a call.
    const cold = await startCauses(w);
    expect(Object.keys(cold).sort()).toEqual(['docs', 'echo', 'every', 'modern', 'win']);
    for (const causes of Object.values(cold)) expect(causes).toEqual(['metadata']);
    await waitFor('every cache file to hold its lists', () => cacheComplete(w, 5));
    await stopCore(w);

    await w.startCore();
    const warm = await w.gateway('anyone', ['--no-autostart']);
    expectMainListing(await mcpLists(sdkList(warm)));
    expect(await startCauses(w)).toEqual({});
    await stopCore(w);

    // Another spec for echo: another fingerprint. Its entry is listed afresh; every other entry stays as it was.
    const before = cacheFiles(w);
    w.write('profiles/default.yaml', STORE({ CHANGED: '1' })['profiles/default.yaml']);
    w.write('profiles/plain.yaml', STORE({ CHANGED: '1' })['profiles/plain.yaml']);
    await w.startCore();
    const changed = await w.gateway('anyone', ['--no-autostart']);
    expectMainListing(await mcpLists(sdkList(changed)));
    expect(await startCauses(w)).toEqual({ echo: ['metadata'] });
    const after = cacheFiles(w);
    const kept = [...after].filter(([name, text]) => before.get(name) === text).map(([name]) => name);
    expect(kept).toHaveLength(4);
    expect(after.size).toBe(5);
    expect([...before.keys()].filter((n) => !after.has(n))).toHaveLength(1);
  }, 240_000);
});

/** An SDK client's list call by method name. */
function sdkList(c: Client): (method: string) => Promise<unknown> {
  const calls: Record<string, () => Promise<unknown>> = {
    'tools/list': () => c.listTools(),
    'resources/list': () => c.listResources(),
    'resources/templates/list': () => c.listResourceTemplates(),
    'prompts/list': () => c.listPrompts(),
  };
  return (m) => (calls[m] as () => Promise<unknown>)();
}
