import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { rawPost, startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { echoServer, profile } from '../support/profiles.js';

const V = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
const SKILLS = 'io.modelcontextprotocol/skills';
/** MCP Apps' extension has no methods: the server's tools and ui:// resources pass through, nothing is dropped. */
const UI = 'io.modelcontextprotocol/ui';

/**
 * An extension a downstream server declares is dropped whole, with a log line that says why: 2026 clients
 * are not offered it and its methods are unknown, rather than offered and half-routed.
 */
describe('extensions a downstream server declares', () => {
  let world: TestWorld;
  let gw: HttpGatewayProc;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('ext', {}, { ECHO_EXTENSIONS: `${SKILLS},${UI}` })),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    gw = await startWorldHttpGateway(world, 'alice');
  });
  afterAll(async () => {
    if (gw) await stopProc(gw.proc);
    await world.cleanup();
  });

  const rpc = async (id: number, method: string, params: Record<string, unknown> = {}) => {
    const r = await rawPost(
      gw.url,
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': V,
        'mcp-method': method,
      },
      { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } },
    );
    const body = r.body.startsWith('event:') ? r.body.split('data: ').pop()! : r.body;
    return { status: r.status, ...(JSON.parse(body) as { result?: Record<string, unknown>; error?: { code: number } }) };
  };

  it('are not offered to clients, their methods are unknown, and the core says why', async () => {
    const list = await rpc(1, 'tools/list');
    expect(list.result?.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'ext__echo' })]));
    const line = await world.waitForLogLine('the dropped-extension line', /extensions\.dropped/);
    // The line names skills alone: the UI extension is not dropped.
    expect(line).toContain(
      `server ext declares the extension ${SKILLS}; mcpd does not route extension methods to servers, so clients are not offered it`,
    );
    const d = await rpc(2, 'server/discover');
    expect(Object.keys((d.result?.capabilities as { extensions: object }).extensions)).toEqual(['io.modelcontextprotocol/tasks']);
    const skill = await rpc(3, 'skills/list');
    expect([skill.status, skill.error?.code]).toEqual([404, -32601]);
  });
});
