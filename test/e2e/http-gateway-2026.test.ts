import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestWorld } from '../support/core-process.js';
import { rawPost, sse, startHttpGatewayProc, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  id?: unknown;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

/**
 * 2026-07-28 requests to `mcpdmcp --http`: no session, the protocol in every
 * request's `_meta`, MRTR for server→client requests — with a real core and the conformance fixture
 * (a 2025-11-25 server) behind it.
 */
describe('mcpdmcp --http: 2026-07-28 stateless requests', () => {
  let world: TestWorld;
  let gw: HttpGatewayProc;

  beforeAll(async () => {
    const fixture = server('cf', [process.execPath, `${FIXTURES}/servers/conformance.mjs`], { maxConcurrent: 1, maxInstances: 4 });
    world = new TestWorld({ 'profiles/default.yaml': `namespace: { mode: never }\n${profile(fixture)}`, 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    gw = await startHttpGatewayProc('web', ['--socket', world.socket, '--no-autostart', '--http', '127.0.0.1:0'], world.env());
  });
  afterAll(async () => {
    if (gw) await stopProc(gw.proc);
    await world.cleanup();
  });

  /** One request with the routing headers a 2026 client sends (overridable). */
  const call = async (id: number, method: string, params: Json, headers: Record<string, string> = {}): Promise<Answer> => {
    const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
    const h: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': V,
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
      ...headers,
    };
    const r = await rawPost(gw.url, h, { jsonrpc: '2.0', id, method, params });
    const body = r.body.startsWith('event:') ? r.body.split('data: ').pop()! : r.body;
    return { status: r.status, ...(JSON.parse(body) as Json) };
  };

  it('answers tools/list and tools/call without initialize, with resultType and private caching hints', async () => {
    const list = await call(1, 'tools/list', { _meta: META });
    expect(list.status).toBe(200);
    expect(list.result?.resultType).toBe('complete');
    expect(list.result?.cacheScope).toBe('private');
    expect(list.result?.ttlMs).toBeGreaterThan(0);
    expect((list.result?.tools as { name: string }[]).map((t) => t.name)).toContain('test_simple_text');

    const r = await call(2, 'tools/call', { name: 'test_simple_text', arguments: {}, _meta: META });
    expect(r.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
  });

  it('server/discover names the supported versions, the capabilities and the server', async () => {
    const d = await call(3, 'server/discover', { _meta: META });
    expect(d.result?.supportedVersions).toEqual(expect.arrayContaining([V, '2025-11-25']));
    expect(d.result?.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {} });
    expect((d.result?._meta as Json)['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcpd' });
  });

  it('refuses bad requests with the spec codes and statuses, always echoing the request id', async () => {
    const noMeta = await call(10, 'tools/list', {});
    expect([noMeta.status, noMeta.id, noMeta.error?.code]).toEqual([400, 10, -32602]);

    const old = await call(
      11,
      'tools/list',
      { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } },
      { 'mcp-protocol-version': '1999-01-01' },
    );
    expect([old.status, old.id, old.error?.code]).toEqual([400, 11, -32022]);
    expect(old.error?.data).toEqual({ supported: expect.arrayContaining([V]), requested: '1999-01-01' });

    const mismatch = await call(12, 'tools/list', { _meta: META }, { 'mcp-method': 'prompts/list' });
    expect([mismatch.status, mismatch.id, mismatch.error?.code]).toEqual([400, 12, -32020]);
    expect(mismatch.error?.message).toContain('Mcp-Method');

    const removed = await call(13, 'ping', { _meta: META });
    expect([removed.status, removed.id, removed.error?.code]).toEqual([404, 13, -32601]);

    const unknownUri = await call(14, 'resources/read', { uri: 'test://nope', _meta: META });
    expect([unknownUri.id, unknownUri.error?.code, unknownUri.error?.data?.uri]).toEqual([14, -32602, 'test://nope']);
  });

  it('checks Mcp-Param-* headers against the x-mcp-header arguments of the called tool', async () => {
    const args = { region: 'Hello', count: 42 };
    const p = { name: 'test_param_headers', arguments: args, _meta: META };
    const plain = await call(20, 'tools/call', p, { 'mcp-param-region': 'Hello', 'mcp-param-count': '42' });
    expect(plain.result?.content).toEqual([{ type: 'text', text: 'region=Hello count=42' }]);
    const b64 = await call(21, 'tools/call', p, { 'mcp-param-region': '=?base64?SGVsbG8=?=', 'mcp-param-count': ' 42.0 ' });
    expect(b64.result?.resultType).toBe('complete');
    // No value in the body, no header expected.
    const without = await call(22, 'tools/call', { ...p, arguments: { region: 'x' } }, { 'mcp-param-region': 'x' });
    expect(without.result?.content).toEqual([{ type: 'text', text: 'region=x count=undefined' }]);

    const refused = [
      [{ 'mcp-param-count': '42' }, 'Mcp-Param-Region header is missing'],
      [{ 'mcp-param-region': 'Bye', 'mcp-param-count': '42' }, 'says "Bye" but arguments.region is "Hello"'],
      [{ 'mcp-param-region': '=?base64?SGVsbG8?=', 'mcp-param-count': '42' }, 'not canonical Base64'],
      [{ 'mcp-param-region': '=?base64?SGVs!!!bG8=?=', 'mcp-param-count': '42' }, 'not canonical Base64'],
      [{ 'mcp-param-region': 'Hello', 'mcp-param-count': '41' }, 'Mcp-Param-Count'],
    ] as const;
    for (const [i, [headers, why]] of refused.entries()) {
      const r = await call(30 + i, 'tools/call', p, headers);
      expect([r.status, r.id, r.error?.code]).toEqual([400, 30 + i, -32020]);
      expect(r.error?.message).toContain(why);
    }
    // A value without both ends of the sentinel is literal text.
    const literal = await call(
      40,
      'tools/call',
      { ...p, arguments: { region: '=?base64?SGVsbG8=' } },
      { 'mcp-param-region': '=?base64?SGVsbG8=' },
    );
    expect(literal.result?.resultType).toBe('complete');
  });

  it('turns a 2025-11-25 server’s elicitation into an InputRequiredResult and completes on the retry', async () => {
    const params = { name: 'test_input_required_result_elicitation', arguments: {}, _meta: META };
    const r1 = await call(20, 'tools/call', params);
    expect(r1.result?.resultType).toBe('input_required');
    expect((r1.result?.inputRequests as Json).user_name).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'What is your name?' },
    });
    const state = r1.result?.requestState as string;

    // Altered state is refused, and the parked call still waits for the genuine retry.
    const tampered = await call(21, 'tools/call', { ...params, requestState: `${state.slice(0, -2)}xx`, inputResponses: {} });
    expect([tampered.id, tampered.error?.code]).toEqual([21, -32602]);

    const answer = { user_name: { action: 'accept', content: { name: 'Alice' } } };
    const r2 = await call(22, 'tools/call', { ...params, requestState: state, inputResponses: answer });
    expect(r2.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Alice!' }] });

    // The state answered once is used up.
    const replay = await call(23, 'tools/call', { ...params, requestState: state, inputResponses: answer });
    expect(replay.error?.code).toBe(-32602);
  });

  it('refuses a server request the client did not declare with -32021 and the capability needed', async () => {
    const r = await call(30, 'tools/call', { name: 'test_missing_capability', arguments: {}, _meta: META });
    expect([r.status, r.id, r.error?.code]).toEqual([400, 30, -32021]);
    expect(r.error?.data).toEqual({ requiredCapabilities: { sampling: {} } });
  });

  it('subscriptions/listen acknowledges first and tags list changes with the subscription id', async () => {
    const listen = sse(
      gw.url,
      'POST',
      { 'content-type': 'application/json', accept: 'text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'subscriptions/listen' },
      { jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } },
      (events) => {
        // The trigger's own answer is not what this test is about; the stream shows its effect.
        if (events.length === 1) void call(41, 'tools/call', { name: 'test_trigger_tool_change', arguments: {}, _meta: META });
        return events.length >= 2;
      },
    );
    const { events } = await listen;
    const [ack, changed] = events.map((e) => JSON.parse(e.data) as { method: string; params: Json });
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true } },
    });
    expect(changed?.method).toBe('notifications/tools/list_changed');
    for (const n of [ack, changed]) expect((n?.params._meta as Json)['io.modelcontextprotocol/subscriptionId']).toBe('sub-1');
  });

  it('still serves 2025-11-25 sessions on the same endpoint', async () => {
    const client = new Client({ name: 'legacy', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(gw.url));
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    const r = (await client.callTool({ name: 'test_simple_text', arguments: {} })) as { content: { text: string }[]; resultType?: string };
    expect(r.content[0]?.text).toBe('This is a simple text response for testing.');
    expect(r.resultType).toBeUndefined();
    await client.close();
  });
});
