import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { stopProc } from '../support/http-gateway.js';
import { FIXTURES, MCPDMCP } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

type Json = Record<string, unknown>;
interface Line {
  jsonrpc: string;
  id?: string | number | null;
  method?: string;
  params?: Json;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

/** `mcpdmcp CALLER` on stdio driven with raw lines: what it writes is parsed as it comes, and waited on. */
class RawStdio {
  readonly lines: Line[] = [];
  private readonly waiters: (() => void)[] = [];
  readonly proc: ChildProcess;

  constructor(world: TestWorld) {
    this.proc = spawn(process.execPath, [MCPDMCP, 'stdio26', '--socket', world.socket, '--no-autostart'], {
      env: world.env(),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let buf = '';
    this.proc.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        this.lines.push(JSON.parse(buf.slice(0, nl)) as Line);
        buf = buf.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  send(message: object): void {
    this.proc.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  /** The first line (from `from` on) that `match` accepts, once it has been written. */
  async waitFor(match: (l: Line) => boolean, what: string, from = 0): Promise<Line> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const hit = this.lines.slice(from).find(match);
      if (hit) return hit;
      if (this.proc.exitCode !== null) throw new Error(`mcpdmcp exited before ${what}; it wrote ${JSON.stringify(this.lines)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within 30 s; mcpdmcp wrote ${JSON.stringify(this.lines)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  /** Sends a request and waits for its answer. */
  async call(id: string | number, method: string, params: Json): Promise<Line> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.waitFor((l) => l.id === id && l.method === undefined, `the answer to ${String(id)} (${method})`);
  }
}

/**
 * 2026-07-28 over `mcpdmcp CALLER` on stdio: a connection whose first request carries the 2026 `_meta`
 * is served statelessly by the same endpoint as --http (MRTR, listen, caching hints, error codes), with a
 * real core and the conformance fixture (a 2025-11-25 server) behind it. The SDK clients' view of the same
 * is in era-pairings.test.ts.
 */
describe('mcpdmcp on stdio: 2026-07-28 requests', () => {
  let world: TestWorld;
  let gw: RawStdio | undefined;

  beforeAll(async () => {
    const fixture = server('cf', [process.execPath, `${FIXTURES}/servers/conformance.mjs`], { maxConcurrent: 1, maxInstances: 4 });
    world = new TestWorld({ 'profiles/default.yaml': `namespace: { mode: never }\n${profile(fixture)}`, 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
  });
  afterEach(async () => {
    if (gw) await stopProc(gw.proc);
    gw = undefined;
  });
  afterAll(async () => {
    await world.cleanup();
  });

  const open = () => (gw = new RawStdio(world));

  it('opens with server/discover, then lists and calls with resultType and private caching hints', async () => {
    const g = open();
    const d = await g.call('server-discover-probe-1', 'server/discover', { _meta: META });
    expect(d.result?.supportedVersions).toEqual(expect.arrayContaining([V, '2025-11-25']));
    expect(d.result?.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {} });
    expect((d.result?._meta as Json)['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcpd' });

    const list = await g.call(1, 'tools/list', { _meta: META });
    expect(list.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(list.result?.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'test_simple_text' })]));

    const r = await g.call(2, 'tools/call', { name: 'test_simple_text', arguments: {}, _meta: META });
    expect(r.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
  });

  it('refuses with the spec codes and the supported versions, echoing the id; removed methods are -32601', async () => {
    const g = open();
    // A first request with 2026 `_meta` makes the connection 2026, even when its version is refused.
    const old = await g.call(10, 'tools/list', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } });
    expect([old.id, old.error?.code]).toEqual([10, -32022]);
    expect(old.error?.data).toEqual({ supported: expect.arrayContaining([V, '2025-11-25']), requested: '1999-01-01' });

    const noMeta = await g.call(11, 'tools/list', {});
    expect([noMeta.id, noMeta.error?.code]).toEqual([11, -32602]);
    expect(noMeta.error?.message).toContain('io.modelcontextprotocol/protocolVersion');

    for (const [i, method] of ['ping', 'logging/setLevel', 'resources/subscribe', 'initialize'].entries()) {
      const removed = await g.call(12 + i, method, { _meta: META });
      expect([removed.id, removed.error?.code]).toEqual([12 + i, -32601]);
    }

    const unknownUri = await g.call(20, 'resources/read', { uri: 'test://nope', _meta: META });
    expect([unknownUri.id, unknownUri.error?.code, unknownUri.error?.data?.uri]).toEqual([20, -32602, 'test://nope']);

    const missing = await g.call(21, 'tools/call', { name: 'test_missing_capability', arguments: {}, _meta: META });
    expect([missing.id, missing.error?.code]).toEqual([21, -32021]);
    expect(missing.error?.data).toEqual({ requiredCapabilities: { sampling: {} } });
  });

  it('turns a 2025-11-25 server’s elicitation into an InputRequiredResult; tampered state is refused; the retry completes', async () => {
    const g = open();
    const params = { name: 'test_input_required_result_elicitation', arguments: {}, _meta: META };
    const r1 = await g.call(30, 'tools/call', params);
    expect(r1.result?.resultType).toBe('input_required');
    expect((r1.result?.inputRequests as Json).user_name).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'What is your name?' },
    });
    const state = r1.result?.requestState as string;

    const tampered = await g.call(31, 'tools/call', { ...params, requestState: `${state.slice(0, -2)}xx`, inputResponses: {} });
    expect([tampered.id, tampered.error?.code]).toEqual([31, -32602]);

    const answer = { user_name: { action: 'accept', content: { name: 'Alice' } } };
    const r2 = await g.call(32, 'tools/call', { ...params, requestState: state, inputResponses: answer });
    expect(r2.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Alice!' }] });

    const replay = await g.call(33, 'tools/call', { ...params, requestState: state, inputResponses: answer });
    expect(replay.error?.code).toBe(-32602);
    // On stdio 2026-07-28 the server writes no requests: the elicitation came as a result.
    expect(g.lines.filter((l) => l.method !== undefined && l.id !== undefined)).toEqual([]);
  });

  it('sends progress for the request’s token before its answer', async () => {
    const g = open();
    const answer = await g.call(40, 'tools/call', {
      name: 'test_tool_with_progress',
      arguments: {},
      _meta: { ...META, progressToken: 'p1' },
    });
    expect(answer.result?.resultType).toBe('complete');
    const at = g.lines.indexOf(answer);
    const progress = g.lines.slice(0, at).filter((l) => l.method === 'notifications/progress');
    expect(progress.map((l) => [l.params?.progressToken, l.params?.progress])).toEqual([
      ['p1', 0],
      ['p1', 50],
      ['p1', 100],
    ]);
  });

  it('subscriptions/listen acknowledges first, tags list changes with its id, and ends on notifications/cancelled', async () => {
    const g = open();
    const listen = (id: string) =>
      g.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } });
    const acked = (id: string) =>
      g.waitFor(
        (l) => l.method === 'notifications/subscriptions/acknowledged' && (l.params?._meta as Json)[SUBSCRIPTION_ID] === id,
        `the acknowledgement of ${id}`,
      );
    listen('sub-1');
    listen('sub-2');
    expect((await acked('sub-1')).params).toMatchObject({ notifications: { toolsListChanged: true } });
    await acked('sub-2');
    // Each stream's acknowledgement comes before anything else tagged with its id.
    for (const id of ['sub-1', 'sub-2']) {
      const first = g.lines.find((l) => (l.params?._meta as Json | undefined)?.[SUBSCRIPTION_ID] === id);
      expect(first?.method).toBe('notifications/subscriptions/acknowledged');
    }

    // stdin is read in order: sub-1 is gone before the tool list changes.
    g.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'sub-1', reason: 'done' } });
    const trigger = await g.call(50, 'tools/call', { name: 'test_trigger_tool_change', arguments: {}, _meta: META });
    expect(trigger.result?.resultType).toBe('complete');
    const changed = await g.waitFor((l) => l.method === 'notifications/tools/list_changed', 'the list change');
    expect((changed.params?._meta as Json)[SUBSCRIPTION_ID]).toBe('sub-2');
    // A request after the change is answered after it too: the cancelled stream had its chance, and took none.
    await g.call(51, 'tools/list', { _meta: META });
    const changes = g.lines.filter((l) => l.method === 'notifications/tools/list_changed');
    expect(changes.map((l) => (l.params?._meta as Json)[SUBSCRIPTION_ID])).toEqual(['sub-2']);
    // A listen request is not answered while it listens, nor after a cancel.
    expect(g.lines.some((l) => l.id === 'sub-1' || l.id === 'sub-2')).toBe(false);
  });

  it('a connection opened with initialize stays a 2025-11-25 session on the same binary', async () => {
    const g = open();
    const init = await g.call(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    expect(init.result?.protocolVersion).toBe('2025-11-25');
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const r = await g.call(2, 'tools/call', { name: 'test_simple_text', arguments: {} });
    expect(r.result?.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    expect(r.result?.resultType).toBeUndefined();
    const discover = await g.call(3, 'server/discover', { _meta: META });
    expect(discover.error?.code).toBe(-32601);
  });
});
