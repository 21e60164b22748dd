import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Through the package's exports map, as a user of the library imports it.
import { SmcpAgent, SmcpError, type RefreshEvents } from 'mcpd/smcp';
import type { ComputerHandlers, TestComputer } from '../support/smcp-peers.js';
import { SmcpOffice } from '../support/smcp-office.js';
import { waitFor } from '../support/procs.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';

const KEY = 'agent-test-key';
let server: SmcpProc;
const peers = new SmcpOffice('a-office');
const office = (): string => peers.office();
const track = <T extends { close(): void }>(x: T): T => peers.track(x);

async function setup(handlers?: ComputerHandlers): Promise<{ agent: SmcpAgent; pc: TestComputer; o: string }> {
  const o = office();
  const pc = peers.computer(server.url, 'pc', { apiKey: KEY }, handlers);
  expect(await pc.join(o)).toEqual([true, null]);
  const agent = track(await SmcpAgent.connect({ url: server.url, name: 'bot', apiKey: KEY, office: o }));
  return { agent, pc, o };
}

function nextRefresh<E extends keyof RefreshEvents>(agent: SmcpAgent, event: E): Promise<RefreshEvents[E]> {
  return new Promise((resolve) => agent.onRefresh(event, resolve));
}

beforeAll(async () => {
  server = await startSmcpProc([], { SMCP_API_KEY: KEY });
});
afterAll(async () => {
  expect((await server.stop()).code).toBe(0);
});

describe('SmcpAgent', () => {
  it('lists the room and queries a computer: tools, desktop, finder, config, resources and the Finder helpers', async () => {
    const tool = { name: 'echo', description: 'Echo', params_schema: { type: 'object' }, return_schema: null, meta: {} };
    const { agent, pc, o } = await setup({
      'client:get_tools': (p) => ({ tools: [tool], req_id: p.req_id }),
      'client:get_desktop': (p) => ({ desktops: [`window://app/main size=${String(p.desktop_size)}`], req_id: p.req_id }),
      'client:get_finder': (p) => ({ documents: [], total_count: 0, req_id: p.req_id }),
      'client:get_config': () => ({ servers: {}, inputs: [] }),
      'client:read_resource': (p) => ({ contents: [{ uri: p.uri, text: '{}' }] }),
    });
    expect((await agent.listRoom()).map((s) => [s.role, s.name, s.office_id]).sort()).toEqual([
      ['agent', 'bot', o],
      ['computer', 'pc', o],
    ]);
    expect(await agent.getTools('pc')).toEqual([tool]);
    expect(await agent.getDesktop('pc', { desktopSize: 3, window: 'window://app/main' })).toEqual(['window://app/main size=3']);
    expect(await agent.getFinder('pc', { keywords: ['q'], fileType: 'pdf', offset: 5, limit: 7 })).toMatchObject({ total_count: 0 });
    expect(await agent.getConfig('pc')).toEqual({ servers: {}, inputs: [] });
    const doc = 'dpe://docs/report';
    await agent.readDocumentMetadata('pc', doc);
    await agent.readDocumentPages('pc', doc, 20, 10);
    await agent.readPage('pc', doc, 3, 'markdown');
    expect(await agent.readElement('pc', doc, 'e/1')).toEqual({ contents: [{ uri: `${doc}/elements/e%2F1`, text: '{}' }] });
    expect(pc.received.filter((r) => r.event === 'client:read_resource').map((r) => r.payload.uri)).toEqual([
      doc,
      `${doc}?depth=pages&offset=20&limit=10`,
      `${doc}/pages/3?format=markdown`,
      `${doc}/elements/e%2F1`,
    ]);
    const finderReq = pc.received.find((r) => r.event === 'client:get_finder')?.payload;
    expect(finderReq).toMatchObject({ agent: 'bot', computer: 'pc', keywords: ['q'], file_type: 'pdf', offset: 5, limit: 7 });
  });

  it('calls a tool; on timeout it sends server:tool_call_cancel and returns an error result', async () => {
    const { agent, pc } = await setup();
    expect(await agent.callTool('pc', 'echo', { message: 'hi' })).toEqual({ content: [{ type: 'text', text: 'hi' }], isError: false });
    const r = await agent.callTool('pc', 'never', {}, { timeoutSeconds: 1, reqId: 'slow-1' });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toContain('Tool call timeout, req_id=slow-1');
    expect(r._meta).toMatchObject({ a2c_error: { code: 408 } });
    expect(await pc.inbox.next('notify:tool_call_cancel')).toEqual({ agent: 'bot', req_id: 'slow-1' });
  });

  it('throws SmcpError with the protocol code for failed requests and refused connections', async () => {
    const { agent, o } = await setup();
    await expect(agent.getTools('ghost')).rejects.toMatchObject({ code: 404 });
    const second = track(await SmcpAgent.connect({ url: server.url, name: 'bot2', apiKey: KEY }));
    const err = await second.joinOffice(o).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SmcpError);
    expect(err).toMatchObject({ code: 4101 });
    await expect(second.listRoom()).rejects.toMatchObject({ code: 4103 });
    await expect(SmcpAgent.connect({ url: server.url, name: 'x', apiKey: 'wrong' })).rejects.toThrow(/does not match/);
  });

  it('refreshes what a notification says changed, with typed handlers', async () => {
    const { agent, pc } = await setup({
      'client:get_tools': (p) => ({
        tools: [{ name: 'new_tool', description: '', params_schema: {}, return_schema: null }],
        req_id: p.req_id,
      }),
      'client:get_desktop': (p) => ({ desktops: ['window://a/b'], req_id: p.req_id }),
      'client:get_finder': (p) => ({ documents: [], total_count: 42, req_id: p.req_id }),
      'client:get_config': () => ({ servers: { s: { name: 's' } } }),
    });
    const raw: string[] = [];
    agent.on('notify:update_desktop', (d) => raw.push(d.computer));
    const tools = nextRefresh(agent, 'tools');
    pc.socket.emit('server:update_tool_list', { computer: 'pc' });
    expect(await tools).toEqual({ computer: 'pc', tools: [expect.objectContaining({ name: 'new_tool' })] });
    const desktop = nextRefresh(agent, 'desktop');
    pc.socket.emit('server:update_desktop', { computer: 'pc' });
    expect(await desktop).toEqual({ computer: 'pc', desktops: ['window://a/b'] });
    expect(raw).toEqual(['pc']);
    const finder = nextRefresh(agent, 'finder');
    pc.socket.emit('server:update_finder', { computer: 'pc' });
    expect((await finder).finder.total_count).toBe(42);
    const config = nextRefresh(agent, 'config');
    pc.socket.emit('server:update_config', { computer: 'pc' });
    expect(await config).toEqual({ computer: 'pc', config: { servers: { s: { name: 's' } } } });
    const left = nextRefresh(agent, 'computerLeft');
    pc.close();
    expect(await left).toEqual({ computer: 'pc' });
  });
});

describe('SmcpAgent reconnection', () => {
  it('re-joins its office by itself after the connection is killed', async () => {
    const own = await startSmcpProc([], { SMCP_API_KEY: KEY });
    let replacement: SmcpProc | undefined;
    try {
      const o = office();
      const agent = track(await SmcpAgent.connect({ url: own.url, name: 'phoenix', apiKey: KEY, office: o }));
      const rejoined = nextRefresh(agent, 'rejoined');
      expect((await own.stop('SIGKILL')).signal).toBe('SIGKILL');
      await waitFor('the agent to see its connection lost', () => !agent.connected);
      // Made while the connection is down: sent only after the automatic re-join, so the Server knows us.
      const meanwhile = agent.listRoom();
      // A new server on the same port: the agent's reconnect lands there with no session at all.
      replacement = await startSmcpProc(['--listen', `127.0.0.1:${own.port}`], { SMCP_API_KEY: KEY });
      expect(await rejoined).toEqual({ office: o });
      expect((await meanwhile).map((s) => s.name)).toEqual(['phoenix']);
      expect((await agent.listRoom()).map((s) => s.name)).toEqual(['phoenix']);
      const rival = track(await SmcpAgent.connect({ url: replacement.url, name: 'rival', apiKey: KEY }));
      await expect(rival.joinOffice(o)).rejects.toMatchObject({ code: 4101 });
    } finally {
      peers.closeAll();
      if (replacement) expect((await replacement.stop()).code).toBe(0);
    }
  });
});
