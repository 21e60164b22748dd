/**
 * Conformance with the reference A2C-SMCP Python SDK (v0.1.2) as it behaves on the wire, played with
 * socket.io-client so the interop holds without Python (smcp-protocol.md §1):
 * - python-socketio clients start on HTTP long-polling and upgrade to WebSocket;
 * - join/leave acks are two arguments, `(bool, str|None)`;
 * - the agent sends its agent_id in `agent`, which is not the name it joined with;
 * - errors are acked flat, `{code, message}`; the Computer reports tool failures inside a CallToolResult.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { connected, Inbox } from '../support/smcp-peers.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';

const KEY = 'reference-wire-key';
const AGENT_ID = 'id-1';
let server: SmcpProc;
const open: Socket[] = [];

/** As python-socketio's AsyncClient connects: polling first (transports polling, websocket), x-api-key header. */
async function referenceClient(): Promise<{ s: Socket; inbox: Inbox; upgraded: Promise<string> }> {
  const s = io(`${server.url}/smcp`, {
    transports: ['polling', 'websocket'],
    extraHeaders: { 'x-api-key': KEY },
    reconnection: false,
    forceNew: true,
  });
  open.push(s);
  // The engine opens in the constructor: its first transport is known now, and no upgrade can have happened yet.
  expect(s.io.engine.transport.name).toBe('polling');
  const upgraded = new Promise<string>((resolve) => s.io.engine.once('upgrade', (t: { name: string }) => resolve(t.name)));
  const inbox = new Inbox(s);
  await connected(s);
  return { s, inbox, upgraded };
}

/** A two-argument ack, as the reference SDK reads `(ok, msg)` of join and leave. */
function twoArgAck(s: Socket, event: string, payload: unknown): Promise<unknown[]> {
  return new Promise((resolve) => s.emit(event, payload, (...args: unknown[]) => resolve(args)));
}

/** The reference Computer's client:* handlers: a name check, then an answer (tool errors inside CallToolResult). */
function answerAsReferenceComputer(s: Socket, name: string): void {
  s.on('client:get_tools', (req: { computer: string; req_id: string }, ack: (v: unknown) => void) =>
    ack({
      tools: [{ name: 'echo', description: 'Echo', params_schema: { type: 'object' }, return_schema: null, meta: {} }],
      req_id: req.req_id,
    }),
  );
  s.on('client:tool_call', (req: { computer: string; tool_name: string; params: { text?: string } }, ack: (v: unknown) => void) => {
    if (req.computer !== name) return ack({ code: 404, message: `not ${req.computer}` });
    if (req.tool_name === 'echo') return ack({ content: [{ type: 'text', text: req.params.text ?? '' }], isError: false, meta: null });
    if (req.tool_name === 'slow') return; // answered only by the cancel below
    ack({
      content: [],
      isError: true,
      structuredContent: { error: `Tool '${req.tool_name}' not found in any active server`, error_type: 'ValueError' },
    });
  });
}

beforeAll(async () => {
  server = await startSmcpProc([], { SMCP_API_KEY: KEY });
});
afterAll(async () => {
  for (const s of open) s.disconnect();
  await server.stop();
});

describe('mcpd-smcp against the reference SDK wire behaviour', () => {
  it('speaks with a polling-first agent and computer that upgrade, join with (bool, str) acks and send agent_id', async () => {
    const computer = await referenceClient();
    answerAsReferenceComputer(computer.s, 'ref-pc');
    expect(await twoArgAck(computer.s, 'server:join_office', { role: 'computer', name: 'ref-pc', office_id: 'ref-office' })).toEqual([
      true,
      null,
    ]);
    const agent = await referenceClient();
    expect(await twoArgAck(agent.s, 'server:join_office', { role: 'agent', name: 'ref-agent', office_id: 'ref-office' })).toEqual([
      true,
      null,
    ]);
    expect(await computer.inbox.next('notify:enter_office')).toEqual({ office_id: 'ref-office', agent: 'ref-agent' });
    expect(await agent.upgraded).toBe('websocket');
    expect(await computer.upgraded).toBe('websocket');

    const room = (await agent.s.emitWithAck('server:list_room', { agent: AGENT_ID, req_id: 'lr', office_id: 'ref-office' })) as {
      sessions: { name: string; role: string }[];
      req_id: string;
    };
    expect(room.req_id).toBe('lr');
    expect(room.sessions.map((x) => `${x.role}:${x.name}`).sort()).toEqual(['agent:ref-agent', 'computer:ref-pc']);

    const tools = (await agent.s.emitWithAck('client:get_tools', { agent: AGENT_ID, req_id: 'gt', computer: 'ref-pc' })) as {
      req_id: string;
      tools: { name: string }[];
    };
    expect(tools).toMatchObject({ req_id: 'gt', tools: [{ name: 'echo' }] });

    const call = { agent: AGENT_ID, req_id: 'tc', computer: 'ref-pc', tool_name: 'echo', params: { text: 'hi' }, timeout: 20 };
    expect(await agent.s.emitWithAck('client:tool_call', call)).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      isError: false,
      meta: null,
    });
    const failed = { ...call, req_id: 'tc2', tool_name: 'nosuchtool' };
    expect(await agent.s.emitWithAck('client:tool_call', failed)).toMatchObject({
      isError: true,
      structuredContent: { error_type: 'ValueError' },
    });

    // Cancel with the agent_id, fire-and-forget as the reference agent sends it; the computer hears the joined name.
    const slow = { ...call, req_id: 'tc3', tool_name: 'slow', timeout: 600 };
    agent.s.emit('client:tool_call', slow, () => undefined);
    agent.s.emit('server:tool_call_cancel', { agent: AGENT_ID, req_id: 'tc3' });
    expect(await computer.inbox.next('notify:tool_call_cancel')).toEqual({ agent: 'ref-agent', req_id: 'tc3' });

    computer.s.emit('server:update_tool_list', { computer: 'ref-pc' });
    expect(await agent.inbox.next('notify:update_tool_list')).toEqual({ computer: 'ref-pc' });
  });

  it('acks errors flat as {code, message} and join failures as (false, "[code] …"); a renamed computer rejoins', async () => {
    const agent = await referenceClient();
    expect(await twoArgAck(agent.s, 'server:join_office', { role: 'agent', name: 'ref-agent-2', office_id: 'ref-office-2' })).toEqual([
      true,
      null,
    ]);
    const missing = (await agent.s.emitWithAck('client:get_tools', { agent: AGENT_ID, req_id: 'x', computer: 'nobody' })) as Record<
      string,
      unknown
    >;
    expect(missing).toMatchObject({ code: 404 });
    expect(typeof missing.message).toBe('string');
    expect(missing).not.toHaveProperty('error');
    const second = await referenceClient();
    const [ok, msg] = await twoArgAck(second.s, 'server:join_office', { role: 'agent', name: 'other', office_id: 'ref-office-2' });
    expect(ok).toBe(false);
    expect(msg).toMatch(/^\[4101\] /);

    const computer = await referenceClient();
    answerAsReferenceComputer(computer.s, 'old-name');
    expect(await twoArgAck(computer.s, 'server:join_office', { role: 'computer', name: 'old-name', office_id: 'ref-office-2' })).toEqual([
      true,
      null,
    ]);
    expect(await twoArgAck(computer.s, 'server:leave_office', { office_id: 'ref-office-2' })).toEqual([true, null]);
    expect(await agent.inbox.next('notify:leave_office')).toEqual({ office_id: 'ref-office-2', computer: 'old-name' });
    expect(await twoArgAck(computer.s, 'server:join_office', { role: 'computer', name: 'new-name', office_id: 'ref-office-2' })).toEqual([
      true,
      null,
    ]);
    expect(await agent.inbox.next('notify:enter_office', (d) => (d as { computer?: string }).computer === 'new-name')).toEqual({
      office_id: 'ref-office-2',
      computer: 'new-name',
    });
  });
});
