import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { connected, connectRaw, Inbox, join, officeCall, type ComputerHandlers, type TestComputer } from '../support/smcp-peers.js';
import { SmcpOffice, toolCall } from '../support/smcp-office.js';
import { runSmcpExpectingExit, startSmcpProc, TEST_NODE_SECRET, type SmcpProc } from '../support/smcp-server-proc.js';

let server: SmcpProc;
const peers = new SmcpOffice('office');
const office = (): string => peers.office();
const agentSocket = (): Socket => peers.socket(server.url);
const computer = (name: string, handlers?: ComputerHandlers): TestComputer => peers.computer(server.url, name, {}, handlers);
const agentIn = (o: string, name?: string): Promise<{ s: Socket; inbox: Inbox }> => peers.agent(server.url, o, name);
const call = toolCall;

beforeAll(async () => {
  server = await startSmcpProc();
});
afterAll(async () => {
  const r = await server.stop();
  expect(r.code).toBe(0);
  expect(server.child.exitCode).not.toBeNull();
});

describe('mcpd-smcp offices', () => {
  it('announces joins to the office, skipping the sender, and lists the room', async () => {
    const o = office();
    const { s, inbox } = await agentIn(o);
    const c = computer('laptop');
    expect(await c.join(o)).toEqual([true, null]);
    expect(await inbox.next('notify:enter_office')).toEqual({ office_id: o, computer: 'laptop' });
    const ret = (await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'lr1', office_id: o })) as {
      sessions: { name: string; role: string; office_id: string; sid: string }[];
      req_id: string;
    };
    expect(ret.req_id).toBe('lr1');
    expect(ret.sessions.map((x) => [x.role, x.name, x.office_id]).sort()).toEqual([
      ['agent', 'agent-1', o],
      ['computer', 'laptop', o],
    ]);
    expect(ret.sessions.find((x) => x.name === 'laptop')?.sid).toBe(c.socket.id);
    expect(c.inbox.of('notify:enter_office')).toEqual([]);
  });

  it('admits one agent per office (4101) and keeps a connection in its first role (403)', async () => {
    const o = office();
    await agentIn(o);
    const second = agentSocket();
    await connected(second);
    const [ok, msg] = await join(second, 'agent', 'agent-2', o);
    expect(ok).toBe(false);
    expect(msg).toMatch(/^\[4101\] office ".*" already has an agent \("agent-1"\)/);
    const c = computer('pc');
    await c.join(o);
    const [ok2, msg2] = await join(c.socket, 'agent', 'pc-as-agent', office());
    expect(ok2).toBe(false);
    expect(msg2).toMatch(/^\[403\] role:/);
  });

  it('keeps computer names unique per office, not per namespace', async () => {
    const [o1, o2] = [office(), office()];
    expect(await computer('same').join(o1)).toEqual([true, null]);
    expect(await computer('same').join(o2)).toEqual([true, null]);
    const [ok, msg] = await computer('same').join(o1);
    expect(ok).toBe(false);
    expect(msg).toMatch(/^\[4101\] name: computer "same" is already in office/);
  });

  it('moves a computer that joins another office, with notify:leave_office in the old one', async () => {
    const [o1, o2] = [office(), office()];
    const a1 = await agentIn(o1);
    const a2 = await agentIn(o2);
    const c = computer('mover');
    await c.join(o1);
    await a1.inbox.next('notify:enter_office');
    expect(await join(c.socket, 'computer', 'mover', o2)).toEqual([true, null]);
    expect(await a1.inbox.next('notify:leave_office')).toEqual({ office_id: o1, computer: 'mover' });
    expect(await a2.inbox.next('notify:enter_office')).toEqual({ office_id: o2, computer: 'mover' });
    // The old seat is free again.
    expect(await computer('mover').join(o1)).toEqual([true, null]);
  });

  it('announces leave and disconnect; leaving an office one is not in is 4103', async () => {
    const o = office();
    const { inbox } = await agentIn(o);
    const c1 = computer('c1');
    const c2 = computer('c2');
    await c1.join(o);
    await c2.join(o);
    expect(await officeCall(c1.socket, 'server:leave_office', { office_id: o })).toEqual([true, null]);
    expect(await inbox.next('notify:leave_office', (d) => (d as { computer?: string }).computer === 'c1')).toEqual({
      office_id: o,
      computer: 'c1',
    });
    const [ok, msg] = (await officeCall(c1.socket, 'server:leave_office', { office_id: o })) as [boolean, string];
    expect(ok).toBe(false);
    expect(msg).toMatch(/^\[4103\] office_id:/);
    c2.close();
    expect(await inbox.next('notify:leave_office', (d) => (d as { computer?: string }).computer === 'c2')).toEqual({
      office_id: o,
      computer: 'c2',
    });
  });

  it('answers list_room for another office with 4104 and for an unknown one with 4102', async () => {
    const [o1, o2] = [office(), office()];
    const { s } = await agentIn(o1);
    await computer('x').join(o2);
    expect(await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'q', office_id: o2 })).toMatchObject({
      code: 4104,
      details: { field: 'office_id' },
    });
    expect(await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'q', office_id: 'nowhere' })).toMatchObject({
      code: 4102,
    });
  });
});

describe('mcpd-smcp routing', () => {
  it('routes every client:* to the named computer of the agent office and returns its ack unchanged', async () => {
    const o = office();
    const { s } = await agentIn(o);
    const c = computer('laptop');
    await c.join(o);
    expect(await s.emitWithAck('client:tool_call', call('laptop'))).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      isError: false,
    });
    for (const event of ['client:get_tools', 'client:get_desktop', 'client:get_config', 'client:get_finder']) {
      const req = { agent: 'agent-1', req_id: `id-${event}`, computer: 'laptop' };
      expect(await s.emitWithAck(event, req)).toEqual({ req_id: req.req_id, echo: event, computer: 'laptop' });
    }
    const rr = { agent: 'agent-1', req_id: 'rr', computer: 'laptop', uri: 'dpe://docs/a' };
    expect(await s.emitWithAck('client:read_resource', rr)).toMatchObject({ echo: 'client:read_resource' });
    expect(c.received.find((r) => r.event === 'client:read_resource')?.payload).toEqual(rr);
  });

  it('never routes to a computer of another office (404)', async () => {
    const [o1, o2] = [office(), office()];
    const { s } = await agentIn(o1);
    const c = computer('elsewhere');
    await c.join(o2);
    expect(await s.emitWithAck('client:tool_call', call('elsewhere'))).toMatchObject({
      code: 404,
      details: { field: 'computer', office_id: o1 },
    });
    expect(c.received).toEqual([]);
  });

  it('acks 408 when the computer does not answer within the request timeout', async () => {
    const o = office();
    const { s } = await agentIn(o);
    await computer('slow').join(o);
    const r = await s.emitWithAck('client:tool_call', call('slow', { tool_name: 'never', timeout: 1 }));
    expect(r).toMatchObject({ code: 408, details: { timeout_ms: 1000 } });
  });

  it('fails a call at once when its computer disconnects mid-call', async () => {
    const o = office();
    const { s } = await agentIn(o);
    const c = computer('leaver');
    await c.join(o);
    const pending = s.emitWithAck('client:tool_call', call('leaver', { tool_name: 'never', timeout: 600 }));
    await c.firstRequest();
    c.close();
    expect(await pending).toMatchObject({ code: 404, details: { reason: 'computer_left' } });
  });

  it('turns server:update_* into notify:* for the office only, skipping the sender', async () => {
    const [o1, o2] = [office(), office()];
    const a1 = await agentIn(o1);
    const a2 = await agentIn(o2);
    const c = computer('notifier');
    await c.join(o1);
    for (const kind of ['update_config', 'update_tool_list', 'update_desktop', 'update_finder']) {
      c.socket.emit(`server:${kind}`, { computer: 'notifier' });
      expect(await a1.inbox.next(`notify:${kind}`)).toEqual({ computer: 'notifier' });
    }
    // A round trip on o2's agent after the broadcasts: anything sent to it would have arrived first.
    await a2.s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'x', office_id: o2 });
    expect(a2.inbox.events.filter((e) => e.event.startsWith('notify:update'))).toEqual([]);
    expect(c.inbox.events.filter((e) => e.event.startsWith('notify:update'))).toEqual([]);
    // Claiming another computer's name is refused (ack requested).
    expect(await c.socket.emitWithAck('server:update_tool_list', { computer: 'someone-else' })).toMatchObject({
      code: 403,
      details: { field: 'computer' },
    });
  });

  it('relays server:tool_call_cancel as notify:tool_call_cancel; the cancelled call acks a2c_cancelled', async () => {
    const o = office();
    const { s } = await agentIn(o);
    const c = computer('canceller');
    await c.join(o);
    const req = call('canceller', { tool_name: 'wait_for_cancel', timeout: 600 });
    const pending = s.emitWithAck('client:tool_call', req);
    s.emit('server:tool_call_cancel', { agent: 'agent-1', req_id: req.req_id });
    expect(await c.inbox.next('notify:tool_call_cancel')).toEqual({ agent: 'agent-1', req_id: req.req_id });
    expect(await pending).toEqual({ content: [], isError: true, _meta: { a2c_cancelled: true } });
  });

  it('relays a cancel for a call of the connection that already finished (the computer decides), as the reference server does', async () => {
    const o = office();
    const { s } = await agentIn(o);
    const c = computer('finisher');
    await c.join(o);
    const req = call('finisher', { params: { message: 'done' } });
    expect(await s.emitWithAck('client:tool_call', req)).toEqual({ content: [{ type: 'text', text: 'done' }], isError: false });
    expect(await s.emitWithAck('server:tool_call_cancel', { agent: 'agent-1', req_id: req.req_id })).toBeNull();
    expect(await c.inbox.next('notify:tool_call_cancel')).toEqual({ agent: 'agent-1', req_id: req.req_id });
    // A req_id this connection never used is still refused.
    expect(await s.emitWithAck('server:tool_call_cancel', { agent: 'agent-1', req_id: 'never-made' })).toMatchObject({ code: 404 });
  });
});

describe('mcpd-smcp identity of a request', () => {
  it('accepts any agent value and attributes the request to the name the connection joined with', async () => {
    const o = office();
    const { s } = await agentIn(o, 'joined-name');
    const c = computer('pc');
    await c.join(o);
    // The reference SDK's agent sends its agent_id here, not the name it joined with.
    const tools = { agent: 'id-1', req_id: 'g1', computer: 'pc' };
    expect(await s.emitWithAck('client:get_tools', tools)).toEqual({ req_id: 'g1', echo: 'client:get_tools', computer: 'pc' });
    expect(c.received.at(-1)?.payload).toEqual({ ...tools, agent: 'joined-name' });
    const ret = (await s.emitWithAck('server:list_room', { agent: 'id-1', req_id: 'lr', office_id: o })) as { req_id: string };
    expect(ret.req_id).toBe('lr');
    const req = call('pc', { agent: 'id-1', tool_name: 'wait_for_cancel', timeout: 600 });
    const pending = s.emitWithAck('client:tool_call', req);
    s.emit('server:tool_call_cancel', { agent: 'id-1', req_id: req.req_id });
    expect(await c.inbox.next('notify:tool_call_cancel')).toEqual({ agent: 'joined-name', req_id: req.req_id });
    expect(await pending).toMatchObject({ _meta: { a2c_cancelled: true } });
  });

  it('cancels only the calls of the same connection, not of a departed agent whose name was taken', async () => {
    const o = office();
    const first = await agentIn(o, 'agent-1');
    const c = computer('pc');
    await c.join(o);
    const old = call('pc', { tool_name: 'wait_for_cancel', timeout: 600 });
    first.s.emit('client:tool_call', old, () => undefined);
    await c.firstRequest();
    first.s.disconnect();
    await c.inbox.next('notify:leave_office');
    const second = await agentIn(o, 'agent-1');
    expect(await second.s.emitWithAck('server:tool_call_cancel', { agent: 'agent-1', req_id: old.req_id })).toMatchObject({
      code: 404,
      details: { field: 'req_id' },
    });
    // Its own call can be cancelled; that notice reaching the computer proves nothing was sent before it.
    const own = call('pc', { tool_name: 'wait_for_cancel', timeout: 600 });
    const pending = second.s.emitWithAck('client:tool_call', own);
    second.s.emit('server:tool_call_cancel', { agent: 'agent-1', req_id: own.req_id });
    await c.inbox.next('notify:tool_call_cancel', (d) => (d as { req_id: string }).req_id === own.req_id);
    await pending;
    expect(c.inbox.of('notify:tool_call_cancel')).toEqual([{ agent: 'agent-1', req_id: own.req_id }]);
  });

  it('refuses a second call with a req_id already in flight on the connection', async () => {
    const o = office();
    const { s } = await agentIn(o);
    const c = computer('pc');
    await c.join(o);
    const req = call('pc', { tool_name: 'wait_for_cancel', timeout: 600 });
    const pending = s.emitWithAck('client:tool_call', req);
    await c.firstRequest();
    expect(await s.emitWithAck('client:tool_call', req)).toMatchObject({ code: 400, details: { field: 'req_id' } });
    s.emit('server:tool_call_cancel', { agent: 'agent-1', req_id: req.req_id });
    await pending;
  });
});

describe('mcpd-smcp caps on requests in flight', () => {
  let capped: SmcpProc;
  beforeAll(async () => {
    capped = await startSmcpProc(['--max-in-flight', '3', '--max-in-flight-computer', '4']);
  });
  afterAll(async () => {
    await capped.stop();
  });

  it('refuses an agent past its cap with a 429 until an answer frees a slot', async () => {
    const o = office();
    const { s } = await peers.agent(capped.url, o);
    const c = peers.computer(capped.url, 'pc');
    await c.join(o);
    const calls = [1, 2, 3].map(() => call('pc', { tool_name: 'wait_for_cancel', timeout: 600 }));
    const pending = calls.map((r) => s.emitWithAck('client:tool_call', r));
    const refused = (await s.emitWithAck('client:tool_call', call('pc'))) as { code: number; message: string };
    expect(refused).toMatchObject({ code: 429, details: { reason: 'too_many_in_flight', limit: 'per_agent', value: 3 } });
    expect(refused.message).toMatch(/already has 3 requests waiting for an answer \(at most 3\); wait for earlier answers/);
    s.emit('server:tool_call_cancel', { agent: 'agent-1', req_id: calls[0]!.req_id });
    await pending[0];
    expect(await s.emitWithAck('client:tool_call', call('pc'))).toMatchObject({ isError: false });
    for (const r of calls.slice(1)) s.emit('server:tool_call_cancel', { agent: 'agent-1', req_id: r.req_id });
    await Promise.all(pending);
  });

  it('refuses requests to a computer past its cap, also from a later agent', async () => {
    const o = office();
    const c = peers.computer(capped.url, 'pc');
    await c.join(o);
    const first = await peers.agent(capped.url, o);
    const stuck = [1, 2, 3].map(() => call('pc', { tool_name: 'never', timeout: 600 }));
    for (const r of stuck) first.s.emit('client:tool_call', r, () => undefined);
    // Forwarded in order: the last one arriving means all three wait on the computer. Then the agent leaves.
    await c.inbox.next('client:tool_call', (d) => (d as { req_id: string }).req_id === stuck[2]!.req_id);
    first.s.disconnect();
    await c.inbox.next('notify:leave_office');
    const second = await peers.agent(capped.url, o);
    second.s.emit('client:tool_call', call('pc', { tool_name: 'never', timeout: 600 }), () => undefined);
    expect(await second.s.emitWithAck('client:tool_call', call('pc'))).toMatchObject({
      code: 429,
      details: { limit: 'per_computer', value: 4 },
    });
  });
});

describe('mcpd-smcp errors and bad input', () => {
  it('names the bad field with a 400 for malformed payloads', async () => {
    const o = office();
    const { s } = await agentIn(o);
    await computer('pc').join(o);
    expect(await s.emitWithAck('client:tool_call', call('pc', { timeout: 'soon' }))).toMatchObject({
      code: 400,
      details: { field: 'timeout' },
    });
    expect(await s.emitWithAck('client:tool_call', 'not an object')).toMatchObject({ code: 400, details: { field: 'payload' } });
    expect(await s.emitWithAck('client:get_finder', { agent: 'agent-1', req_id: 'f', computer: 'pc', limit: -1 })).toMatchObject({
      code: 400,
      details: { field: 'limit' },
    });
    const [ok, msg] = (await officeCall(s, 'server:join_office', { role: 'agent', name: 'n' })) as [boolean, string];
    expect([ok, msg]).toEqual([false, '[400] office_id: is required']);
  });

  it('refuses requests from the wrong role or before joining', async () => {
    const o = office();
    const stranger = agentSocket();
    await connected(stranger);
    expect(await stranger.emitWithAck('client:get_tools', { agent: 'a', req_id: 'r', computer: 'pc' })).toMatchObject({ code: 4103 });
    await agentIn(o);
    const c = computer('pc');
    await c.join(o);
    expect(await c.socket.emitWithAck('client:get_tools', { agent: 'pc', req_id: 'r', computer: 'pc' })).toMatchObject({ code: 403 });
    expect(await c.socket.emitWithAck('server:tool_call_cancel', { agent: 'pc', req_id: 'r' })).toMatchObject({ code: 403 });
  });

  it('answers unknown events and client-sent notify:* with an error ack', async () => {
    const { s } = await agentIn(office());
    expect(await s.emitWithAck('client:launch_missiles', {})).toMatchObject({
      code: 400,
      message: 'unknown event "client:launch_missiles"',
    });
    expect(await s.emitWithAck('whatever', 1, 2)).toMatchObject({ code: 400 });
    expect(await s.emitWithAck('notify:enter_office', { office_id: 'x' })).toMatchObject({ code: 403 });
  });

  it('refuses oversized payloads with a 400 and stays up', async () => {
    const o = office();
    const { s } = await agentIn(o);
    const c = computer('pc');
    await c.join(o);
    const big = call('pc', { params: { message: 'x'.repeat(2 * 1024 * 1024) } });
    expect(await s.emitWithAck('client:tool_call', big)).toMatchObject({ code: 400, details: { reason: 'payload_too_large' } });
    expect(c.received).toEqual([]);
    // Beyond the transport limit the connection is closed, the server stays.
    const brute = agentSocket();
    await connected(brute);
    const closed = new Promise((resolve) => brute.once('disconnect', resolve));
    brute.emit('client:tool_call', { blob: 'y'.repeat(17 * 1024 * 1024) });
    await closed;
    expect(await s.emitWithAck('client:tool_call', call('pc'))).toMatchObject({ isError: false });
  });

  it('survives a flood of joins: every one acked, excess ones refused clearly, the server still routes', async () => {
    const o = office();
    const flood = agentSocket();
    await connected(flood);
    const acks = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        officeCall(flood, 'server:join_office', { role: 'computer', name: 'flood', office_id: `${o}-${i}` }),
      ),
    );
    const refused = acks.filter(([ok]) => !ok) as [boolean, string][];
    expect(acks.length).toBe(200);
    expect(refused.length).toBeGreaterThan(0);
    for (const [, msg] of refused) expect(msg).toMatch(/^\[400\] more than 16 office requests are waiting/);
    const many = Array.from({ length: 100 }, (_, i) => computer(`m${i}`));
    expect((await Promise.all(many.map((c) => c.join(o)))).every(([ok]) => ok)).toBe(true);
    const { s, inbox } = await agentIn(o);
    expect(await s.emitWithAck('client:tool_call', call('m42'))).toMatchObject({ isError: false });
    const room = (await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'r', office_id: o })) as { sessions: unknown[] };
    // 100 computers and the agent; the flood socket moved between its own offices and holds one seat there.
    expect(room.sessions.length).toBe(101);
    // Nothing leaks: once the computers are gone, so are their seats (each leave is announced, then freed).
    for (const c of many) c.close();
    await inbox.next('notify:leave_office', () => inbox.of('notify:leave_office').length >= 100);
    const after = (await s.emitWithAck('server:list_room', { agent: 'agent-1', req_id: 'r2', office_id: o })) as { sessions: unknown[] };
    expect(after.sessions).toEqual([expect.objectContaining({ name: 'agent-1', role: 'agent' })]);
  });
});

describe('mcpd-smcp connection rules', () => {
  it('requires the API key from the env var named by --api-key-env', async () => {
    const keyed = await startSmcpProc(['--api-key-env', 'MY_SMCP_KEY'], { MY_SMCP_KEY: 's3cret-value' });
    try {
      await expect(connected(connectRaw(keyed.url))).rejects.toThrow(/send the API key in the "x-api-key" header/);
      await expect(connected(connectRaw(keyed.url, { apiKey: 'wrong' }))).rejects.toThrow(/does not match/);
      const ok = await connected(connectRaw(keyed.url, { apiKey: 's3cret-value' }));
      ok.disconnect();
      expect(keyed.stderr()).not.toContain('s3cret-value');
    } finally {
      expect((await keyed.stop()).code).toBe(0);
    }
  });

  it('refuses a foreign Origin on loopback (DNS rebinding)', async () => {
    const s = connectRaw(server.url, { extraHeaders: { origin: 'http://evil.example' } });
    await expect(connected(s)).rejects.toThrow();
    const fine = await connected(connectRaw(server.url, { extraHeaders: { origin: 'http://localhost:3000' } }));
    fine.disconnect();
  });

  it('refuses a non-loopback listen address without an API key, and bad flags', async () => {
    const r = await runSmcpExpectingExit(['--listen', '0.0.0.0:0'], { SMCP_API_KEY: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to listen on non-loopback address 0\.0\.0\.0 without an API key/);
    const bad = await runSmcpExpectingExit(['--listen', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--listen "nonsense"/);
    // Port 1 on loopback: nothing listens there. The password in the URL never reaches the message.
    const noRedis = await runSmcpExpectingExit(['--listen', '127.0.0.1:0', '--redis', 'redis://:pa55word@127.0.0.1:1'], {
      SMCP_API_KEY: 'k',
      SMCP_NODE_SECRET: TEST_NODE_SECRET,
    });
    expect(noRedis.code).toBe(2);
    expect(noRedis.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1/);
    expect(noRedis.stderr).not.toContain('pa55word');
    // Redis without an API key: nothing would key the signature of the nodes' messages.
    const unkeyed = await runSmcpExpectingExit(['--listen', '127.0.0.1:0', '--redis', 'redis://127.0.0.1:1'], { SMCP_API_KEY: '' });
    expect(unkeyed.code).toBe(2);
    expect(unkeyed.stderr).toMatch(/refusing to share offices through Redis without an API key/);
    // Redis without a node secret, with a short one, or with the client API key as one: each named, with what to do.
    const redisArgs = ['--listen', '127.0.0.1:0', '--redis', 'redis://127.0.0.1:1'];
    const secretless = await runSmcpExpectingExit(redisArgs, { SMCP_API_KEY: 'k', SMCP_NODE_SECRET: '' });
    expect(secretless.code).toBe(2);
    expect(secretless.stderr).toMatch(/without a node secret: SMCP_NODE_SECRET is unset; set SMCP_NODE_SECRET to the same random value/);
    const short = await runSmcpExpectingExit([...redisArgs, '--node-secret-env', 'MY_SECRET'], { SMCP_API_KEY: 'k', MY_SECRET: 'tiny' });
    expect(short.stderr).toMatch(/the node secret in MY_SECRET is too short \(4 characters, at least 32\)/);
    const same = await runSmcpExpectingExit(redisArgs, { SMCP_API_KEY: TEST_NODE_SECRET, SMCP_NODE_SECRET: TEST_NODE_SECRET });
    expect(same.stderr).toMatch(/the node secret in SMCP_NODE_SECRET equals the client API key/);
    const badName = await runSmcpExpectingExit([...redisArgs, '--node-secret-env', 'no-such name']);
    expect(badName.stderr).toMatch(/--node-secret-env needs an environment variable name/);
  });
});
