import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { rawPost, startHttpGatewayProc, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { sharedPoolWorld } from '../support/shared-pool-world.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { profile, server } from '../support/profiles.js';

const ASKING = join(FIXTURES, 'servers/asking.mjs');
type ToolResult = { content: { type: string; text?: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** A caller whose client answers each question with `answer` once `release` says so. */
async function asker(world: TestWorld, caller: string, answer: string, release: () => boolean = () => true) {
  const asked: string[] = [];
  const client: Client = await world.gateway(caller, [], { elicitation: {} });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(String(req.params.message));
    await waitFor(`${caller}'s answer to be released`, release);
    return { action: 'accept' as const, content: { answer } };
  });
  return { client, asked };
}

async function askingPool(world: TestWorld) {
  const st = await world.calls().status();
  const pool = st.pools.find((p) => p.references.some((r) => r.endsWith('/ask')));
  if (!pool) throw new Error('no pool for server ask');
  return pool;
}

async function stopCore(w: TestWorld): Promise<void> {
  for (const c of w.clients.splice(0)) await c.close().catch(() => {});
  for (const core of w.cores) if (core.exitCode === null && core.signalCode === null) core.kill('SIGTERM');
  await waitFor('the core and its servers to exit', () => w.pids().length === 0);
}

/**
 * A server that asks its client, with a plain entry (no maxConcurrent): once it has asked, each call gets an
 * instance of its own, so two callers' questions at the same time each reach their own caller; status says
 * so, and a restarted core knows it from the metadata cache.
 */
describe('a server that asks its client, without tuning', () => {
  let world: TestWorld;
  afterAll(async () => world?.cleanup());

  it("gives each call an instance of its own once the server asked, so concurrent callers' questions are not refused", async () => {
    world = await sharedPoolWorld(server('ask', [process.execPath, ASKING], { idleSeconds: 300 }));
    const first = await asker(world, 'alice', 'from-alice');
    expect(textOf(await first.client.callTool({ name: 'ask__ask', arguments: { label: 'first' } }))).toBe('from-alice');
    expect((await askingPool(world)).asksClient).toBe(true);

    // Both calls in flight at once: each client answers only once the other's question arrived (or the other
    // call ended: on one shared instance the second question is refused, and the call answers with the error).
    let bobEnded = false;
    let aliceEnded = false;
    const bob = await asker(world, 'bob', 'bob-2', () => alice.asked.length === 1 || aliceEnded);
    const alice = await asker(world, 'alice', 'alice-2', () => bob.asked.length === 1 || bobEnded);
    const [a, b] = await Promise.all([
      alice.client.callTool({ name: 'ask__ask', arguments: { label: 'alice-q' } }).finally(() => (aliceEnded = true)),
      bob.client.callTool({ name: 'ask__ask', arguments: { label: 'bob-q' } }).finally(() => (bobEnded = true)),
    ]);
    expect([textOf(a), textOf(b)]).toEqual(['alice-2', 'bob-2']);
    expect([alice.asked, bob.asked]).toEqual([['alice-q'], ['bob-q']]);
    expect((await askingPool(world)).instances.length).toBeGreaterThanOrEqual(2);
  });

  it('a restarted core knows from its metadata cache, before the server asks again', async () => {
    await stopCore(world);
    await world.startCore();
    const pool = await askingPool(world);
    expect(pool.instances).toEqual([]);
    expect(pool.asksClient).toBe(true);
  });
});

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

/**
 * A 2026-07-28 call parked for its client's retry (MRTR) holds its instance until the retry; with
 * `maxInstances: 1` and nothing else set, another caller's call still runs (on an instance started past the
 * cap for it) instead of waiting for the park to end and failing POOL_SATURATED.
 */
describe('a call parked for its client does not starve other callers', () => {
  let world: TestWorld;
  let gw: HttpGatewayProc | undefined;
  afterEach(async () => {
    if (gw) await stopProc(gw.proc);
    await world?.cleanup();
  });

  it('answers a second call while the first waits for its retry', async () => {
    const fixture = server('cf', [process.execPath, `${FIXTURES}/servers/conformance.mjs`], { maxInstances: 1 });
    world = new TestWorld({ 'profiles/default.yaml': `namespace: { mode: never }\n${profile(fixture)}`, 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    gw = await startHttpGatewayProc('web', ['--socket', world.socket, '--no-autostart', '--http', '127.0.0.1:0'], world.env());
    const url = gw.url;
    const call = async (id: number, name: string) => {
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V,
        'mcp-method': 'tools/call',
        'mcp-name': name,
      };
      const r = await rawPost(url, headers, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: META } });
      const body = r.body.startsWith('event:') ? r.body.split('data: ').pop()! : r.body;
      return JSON.parse(body) as { result?: Record<string, unknown>; error?: { message: string } };
    };
    const parked = await call(1, 'test_input_required_result_elicitation');
    expect(parked.result?.resultType).toBe('input_required');
    const other = await call(2, 'test_simple_text');
    expect(other.error).toBeUndefined();
    expect(other.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
  });
});
