import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { waitFor } from '../support/procs.js';
import { startRedis, type RedisProc } from '../support/redis-proc.js';
import { connected, join, type Inbox, type TestComputer } from '../support/smcp-peers.js';
import { SmcpOffice, toolCall } from '../support/smcp-office.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';

let redis: RedisProc;
let node1: SmcpProc;
let node2: SmcpProc;
/** A Redis cluster needs an API key: it keys the signature of the messages the nodes exchange. */
const KEY = 'redis-cluster-key';
const ENV = { SMCP_API_KEY: KEY };
const peers = new SmcpOffice('r-office', { apiKey: KEY });
const office = (): string => peers.office();
const agentOn = (node: SmcpProc, o: string, name?: string): Promise<{ s: Socket; inbox: Inbox }> => peers.agent(node.url, o, name);
const computerOn = (node: SmcpProc, name: string): TestComputer => peers.computer(node.url, name);
const call = toolCall;

beforeAll(async () => {
  redis = await startRedis();
  node1 = await startSmcpProc(['--redis', redis.url], ENV);
  node2 = await startSmcpProc(['--redis', redis.url], ENV);
});
afterAll(async () => {
  for (const n of [node1, node2]) expect((await n.stop()).signal === 'SIGKILL' || n.child.exitCode === 0).toBe(true);
  await redis.stop();
});

describe('mcpd-smcp on two nodes sharing Redis', () => {
  it('routes an agent on node 1 to a computer on node 2 and lists the room from either node', async () => {
    const o = office();
    const { s, inbox } = await agentOn(node1, o);
    const c = computerOn(node2, 'far');
    expect(await c.join(o)).toEqual([true, null]);
    expect(await inbox.next('notify:enter_office')).toEqual({ office_id: o, computer: 'far' });
    expect(await s.emitWithAck('client:tool_call', call('far', { params: { message: 'across' } }))).toEqual({
      content: [{ type: 'text', text: 'across' }],
      isError: false,
    });
    const room = (await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'l', office_id: o })) as {
      sessions: { name: string; sid: string }[];
    };
    expect(room.sessions.map((x) => x.name).sort()).toEqual(['agent-1', 'far']);
    expect(room.sessions.find((x) => x.name === 'far')?.sid).toBe(c.socket.id);
  });

  it('holds office rules across nodes', async () => {
    const o = office();
    await agentOn(node1, o);
    const second = peers.socket(node2.url);
    await connected(second);
    const [ok, msg] = await join(second, 'agent', 'agent-2', o);
    expect(ok).toBe(false);
    expect(msg).toMatch(/^\[4101\]/);
    expect(await computerOn(node1, 'dup').join(o)).toEqual([true, null]);
    const [ok2, msg2] = await computerOn(node2, 'dup').join(o);
    expect(ok2).toBe(false);
    expect(msg2).toMatch(/^\[4101\] name:/);
  });

  it('carries notifications and cancellation across nodes', async () => {
    const o = office();
    const { s, inbox } = await agentOn(node1, o);
    const c = computerOn(node2, 'notifier');
    await c.join(o);
    c.socket.emit('server:update_tool_list', { computer: 'notifier' });
    expect(await inbox.next('notify:update_tool_list')).toEqual({ computer: 'notifier' });
    const req = call('notifier', { tool_name: 'wait_for_cancel', timeout: 600 });
    const pending = s.emitWithAck('client:tool_call', req);
    s.emit('server:tool_call_cancel', { agent: 'agent-1', req_id: req.req_id });
    expect(await pending).toEqual({ content: [], isError: true, _meta: { a2c_cancelled: true } });
  });

  it('fails a cross-node call at once when the computer disconnects mid-call', async () => {
    const o = office();
    const { s } = await agentOn(node1, o);
    const c = computerOn(node2, 'leaver');
    await c.join(o);
    const pending = s.emitWithAck('client:tool_call', call('leaver', { tool_name: 'never', timeout: 600 }));
    await c.firstRequest();
    c.close();
    expect(await pending).toMatchObject({ code: 404, details: { reason: 'computer_left' } });
  });

  it('finds the offices of a computer on any node (server:find_computer), live members only', async () => {
    const [o1, o2] = [office(), office()];
    const a = computerOn(node2, 'wanted');
    const b = computerOn(node1, 'wanted');
    expect(await a.join(o2)).toEqual([true, null]);
    expect(await b.join(o1)).toEqual([true, null]);
    // An agent that has joined no office yet asks node 1.
    const s = await connected(peers.socket(node1.url));
    let n = 0;
    const find = (computer: string) => s.emitWithAck('server:find_computer', { agent: 'finder', req_id: `f-${++n}`, computer });
    expect(await find('wanted')).toMatchObject({ offices: [o1, o2].sort() });
    a.close();
    await waitFor(
      'the seat of the computer that left to be freed',
      async () => ((await find('wanted')) as { offices: string[] }).offices.length === 1,
    );
    expect(await find('wanted')).toMatchObject({ offices: [o1] });
    expect(await find('nobody')).toMatchObject({ offices: [] });
  });

  it('never routes a call outside the office, whatever node 1 remembers of a computer that moved', async () => {
    const [o, elsewhere] = [office(), office()];
    const { s } = await agentOn(node1, o);
    const first = computerOn(node2, 'mover');
    expect(await first.join(o)).toEqual([true, null]);
    expect(await s.emitWithAck('client:tool_call', call('mover'))).toMatchObject({ isError: false });
    // Same connection, other office: node 1 looked this seat up before.
    expect(await first.join(elsewhere)).toEqual([true, null]);
    expect(await s.emitWithAck('client:tool_call', call('mover'))).toMatchObject({ code: 404 });
    const second = computerOn(node2, 'mover');
    expect(await second.join(o)).toEqual([true, null]);
    expect(await s.emitWithAck('client:tool_call', call('mover', { params: { message: 'to the new one' } }))).toMatchObject({
      isError: false,
    });
    expect(first.received).toHaveLength(1);
    expect(second.received.map((r) => (r.payload.params as { message: string }).message)).toEqual(['to the new one']);
  });

  it('takes the sessions of a node killed with SIGKILL out of the registry', async () => {
    const o = office();
    const { s, inbox } = await agentOn(node1, o);
    const c = computerOn(node2, 'doomed');
    await c.join(o);
    await inbox.next('notify:enter_office');
    expect((await node2.stop('SIGKILL')).signal).toBe('SIGKILL');
    // Bounded by the heartbeat TTL plus one sweep interval; the test timeout bounds the wait.
    expect(await inbox.next('notify:leave_office')).toEqual({ office_id: o, computer: 'doomed' });
    const room = (await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'l', office_id: o })) as {
      sessions: { name: string }[];
    };
    expect(room.sessions.map((x) => x.name)).toEqual(['agent-1']);
    expect(await s.emitWithAck('client:get_tools', { agent: 'agent-1', req_id: 'g', computer: 'doomed' })).toMatchObject({ code: 404 });
    expect(await computerOn(node1, 'doomed').join(o)).toEqual([true, null]);
  });
});

describe('mcpd-smcp when its Redis goes away', () => {
  it('acks requests with a clear error instead of hanging, and still stops on SIGTERM', async () => {
    const own = await startRedis();
    const n = await startSmcpProc(['--redis', own.url], ENV);
    try {
      const o = office();
      const { s } = await agentOn(n, o);
      await computerOn(n, 'pc').join(o);
      await own.stop();
      const r = (await s.emitWithAck('client:tool_call', call('pc'))) as { code: number; message: string };
      expect(r.code).toBe(500);
      expect(r.message).toMatch(/internal error handling client:tool_call/);
      expect(n.child.exitCode).toBeNull();
    } finally {
      peers.closeAll();
      expect((await n.stop()).code).toBe(0);
      await own.stop();
    }
  });

  it("claims its members' seats again when Redis comes back empty", async () => {
    const first = await startRedis();
    const n = await startSmcpProc(['--redis', first.url], ENV);
    let second: RedisProc | undefined;
    try {
      const o = office();
      const { s } = await agentOn(n, o);
      await computerOn(n, 'pc').join(o);
      await first.stop();
      second = await startRedis(process.env, first.port);
      // Polls a real request until the node's next heartbeat has re-claimed the seats.
      await waitFor('the seats re-claimed', async () => {
        const r = (await s.emitWithAck('client:tool_call', call('pc'))) as { isError?: boolean };
        return r.isError === false;
      });
      const room = (await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'l', office_id: o })) as {
        sessions: { name: string }[];
      };
      expect(room.sessions.map((x) => x.name).sort()).toEqual(['agent-1', 'pc']);
    } finally {
      peers.closeAll();
      expect((await n.stop()).code).toBe(0);
      await second?.stop();
    }
  });
});
