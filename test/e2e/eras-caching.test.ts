import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { rawPost, startHttpGatewayProc, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

// The caching hints of 2026-07-28 servers behind the core (docs/eras.md, "Caching hints of 2026 servers"):
// a list whose ttlMs ran out is listed again before the core serves it; ttlMs 0 is stale at once unless the
// server's change notifications cover the list (declared listChanged, listen stream acknowledged).
// Each fixture's `reveal` shows a tool and a prompt named quiet without any list_changed: a client sees
// them only if the core lists the server again.

type ToolResult = { content: { type: string; text?: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const SHORT_TTL_MS = 1500;

const era2026 = (name: string, env: Record<string, string>) =>
  server(name, [process.execPath, `${FIXTURES}/servers/era2026.mjs`], { idleSeconds: 300, maxInstances: 1 }, env);

/** Resolves once the wall clock is past `t`: what a TTL measures, so the test waits for it to run out. */
function past(t: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (Date.now() > t ? resolve() : setTimeout(check, Math.max(1, t - Date.now() + 1)));
    check();
  });
}

/** One 2026-07-28 request through `mcpdmcp --http` (stateless: the era's `_meta` and headers on it); its result. */
async function ask2026(url: string, id: number, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(typeof params.uri === 'string' ? { 'mcp-name': params.uri } : {}),
  };
  const r = await rawPost(url, headers, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
  const body = r.body.startsWith('event:') ? (r.body.split('data: ').pop() ?? '') : r.body;
  return (JSON.parse(body) as { result: Record<string, unknown> }).result;
}

describe('a 2026-07-28 server’s ttlMs on its lists, as the core keeps them', () => {
  let world: TestWorld;
  let client: Client;
  const tools = async () => (await client.listTools()).tools.map((t) => t.name);
  const prompts = async () => (await client.listPrompts()).prompts.map((p) => p.name);
  const call = async (name: string) => textOf(await client.callTool({ name, arguments: {} }));

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        era2026('short', { ERA2026_LIST_TTL_MS: String(SHORT_TTL_MS) }),
        era2026('long', { ERA2026_LIST_TTL_MS: String(3_600_000) }),
        era2026('notified', { ERA2026_LIST_TTL_MS: '0' }),
        era2026('bare', { ERA2026_LIST_TTL_MS: '0', ERA2026_LIST_CHANGED: '0' }),
      ),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = await world.gateway('ttl', []);
    const first = await tools();
    expect(first).toEqual(expect.arrayContaining(['short__reveal', 'long__reveal', 'notified__reveal', 'bare__reveal']));
    expect(first.filter((n) => n.endsWith('__quiet'))).toEqual([]);
    expect((await prompts()).filter((n) => n.endsWith('quiet'))).toEqual([]);
  });
  afterAll(async () => world?.cleanup());

  it('ttlMs > 0: the list is kept while fresh, and listed again once the TTL ran out', async () => {
    expect(await call('long__reveal')).toBe('revealed');
    expect(await call('short__reveal')).toBe('revealed');
    const listed = Date.now();
    // An hour's TTL: the cached list is served as it is.
    expect(await tools()).not.toContain('long__quiet');
    // The short list was received before `listed` (if not on the last listing, then on an earlier one):
    // once its TTL is past, the next listing lists the server again before answering.
    await past(listed + SHORT_TTL_MS);
    const after = await tools();
    expect(after).toContain('short__quiet');
    expect(after).not.toContain('long__quiet');
    expect((await prompts()).filter((n) => n.endsWith('quiet'))).toEqual(['short__quiet']);
  });

  it('ttlMs 0 with listChanged and an acknowledged listen stream: kept until the server says it changed', async () => {
    expect(await call('notified__reveal')).toBe('revealed');
    // Freshness is the notifications' business: no re-listing, so the silent change is not seen…
    expect(await tools()).not.toContain('notified__quiet');
    expect(await prompts()).not.toContain('notified__quiet');
    // …and a change the server announces is (grow adds a tool and sends tools/list_changed on the listen stream).
    // An earlier list_changed (the short list's change) may still be on its way: list again on each until grown shows.
    let changes = 0;
    let wake = () => {};
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
      wake();
    });
    /** Resolves once more than `seen` list_changed notifications arrived. */
    const changedSince = (seen: number) => new Promise<void>((r) => (changes > seen ? r() : (wake = r)));
    expect(await call('notified__grow')).toBe('grew');
    let seen = changes;
    let names = await tools();
    while (!names.includes('notified__grown')) {
      await changedSince(seen);
      seen = changes;
      names = await tools();
    }
    expect(names).toContain('notified__quiet');
  });

  it('ttlMs 0 without listChanged: stale at once, so every listing lists the server again', async () => {
    expect(await call('bare__reveal')).toBe('revealed');
    expect(await tools()).toContain('bare__quiet');
    expect(await prompts()).toContain('bare__quiet');
  });
});

// cacheScope: the core is one client of each server with one set of credentials, so a server's list is the
// same for all of the core's callers; what the gateway gives a 2026 client is that caller's profile, so it
// says private whatever the server said (public would let a shared cache hand one caller's view to another).
describe('a 2026-07-28 server’s cacheScope, as mcpdmcp passes results on', () => {
  let world: TestWorld | undefined;
  let gw: HttpGatewayProc | undefined;
  afterAll(async () => {
    if (gw) await stopProc(gw.proc);
    await world?.cleanup();
  });

  it('a server’s public lists and reads reach a 2026 client as private', async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(era2026('open', { ERA2026_CACHE_SCOPE: 'public' })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    gw = await startHttpGatewayProc('scope', ['--socket', world.socket, '--no-autostart', '--http', '127.0.0.1:0'], world.env());
    const url = gw.url;
    const ask = (id: number, method: string, params: Record<string, unknown> = {}) => ask2026(url, id, method, params);
    const results = [
      await ask(1, 'tools/list'),
      await ask(2, 'prompts/list'),
      await ask(3, 'resources/list'),
      await ask(4, 'resources/templates/list'),
      await ask(5, 'resources/read', { uri: 'era://info' }),
    ];
    expect(JSON.stringify(results[4])).toContain('fixture-era2026 speaks 2026-07-28');
    expect(results.map((r) => r.cacheScope)).toEqual(['private', 'private', 'private', 'private', 'private']);
  });
});

// What mcpdmcp tells a 2026 client it may keep a list for never outlives the downstream lists it drew on:
// a server with a 5 s TTL and no list_changed for its silent changes is seen by the client within 5 s, not
// after the gateway's own minute (docs/eras.md, "Caching hints of 2026 servers").
describe('mcpdmcp’s ttlMs for a 2026 client, bounded by the servers’ TTLs', () => {
  const SERVER_TTL_MS = 5000;
  let world: TestWorld | undefined;
  let gw: HttpGatewayProc | undefined;
  afterEach(async () => {
    if (gw) await stopProc(gw.proc);
    await world?.cleanup();
    gw = undefined;
    world = undefined;
  });

  /** A core with these servers and a 2026 client's gateway in front of it. */
  async function start(servers: string[]): Promise<(id: number, method: string) => Promise<Record<string, unknown>>> {
    world = new TestWorld({ 'profiles/default.yaml': profile(...servers), 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    gw = await startHttpGatewayProc('ttl', ['--socket', world.socket, '--no-autostart', '--http', '127.0.0.1:0'], world.env());
    const url = gw.url;
    return (id, method) => ask2026(url, id, method);
  }

  it('every list drawing on a server with a shorter TTL says at most that TTL', async () => {
    const ask = await start([
      era2026('short', { ERA2026_LIST_TTL_MS: String(SERVER_TTL_MS) }),
      server('plain', [process.execPath, `${FIXTURES}/servers/echo.mjs`]),
    ]);
    const tools = await ask(1, 'tools/list');
    expect((tools.tools as { name: string }[]).map((t) => t.name)).toEqual(expect.arrayContaining(['short__reveal', 'plain__echo']));
    const lists = [tools, await ask(2, 'prompts/list'), await ask(3, 'resources/list'), await ask(4, 'resources/templates/list')];
    for (const list of lists) {
      expect(list.ttlMs).toEqual(expect.any(Number));
      expect(list.ttlMs).toBeGreaterThanOrEqual(0);
      expect(list.ttlMs).toBeLessThanOrEqual(SERVER_TTL_MS);
    }
  });

  it('lists from servers without a TTL say the gateway’s minute', async () => {
    const ask = await start([server('plain', [process.execPath, `${FIXTURES}/servers/echo.mjs`])]);
    const tools = await ask(1, 'tools/list');
    expect((tools.tools as { name: string }[]).map((t) => t.name)).toContain('plain__echo');
    expect(tools.ttlMs).toBe(60_000);
  });
});

// A listing the core makes for its cache (here prompts/list, held at the server) is no caller's call: a
// server's input request during it is traced to the one caller with a call in flight, not refused as
// "more than one caller session has a call in flight".
describe('a listing for the core’s cache while a caller’s call asks for input', () => {
  let world: TestWorld | undefined;
  afterAll(async () => world?.cleanup());

  it('the roots request reaches the caller, and the held listing then completes', async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        server(
          'held',
          [process.execPath, `${FIXTURES}/servers/era2026.mjs`],
          { idleSeconds: 300, maxInstances: 1, maxConcurrent: 4 },
          { ERA2026_HOLD_LISTS: '1' },
        ),
      ),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    const client = await world.gateway('held', [], { roots: {} });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/held' }] }));
    expect(await client.listTools()).toBeDefined();
    const prompts = client.listPrompts();
    await world.waitForLogLine('the held prompts/list', /holding prompts\/list/);
    expect(textOf(await client.callTool({ name: 'held__roots', arguments: {} }))).toBe('roots: file:///work/held');
    expect(textOf(await client.callTool({ name: 'held__release', arguments: {} }))).toBe('released');
    expect((await prompts).prompts.map((p) => p.name)).toContain('held__greet');
  });
});
