/**
 * Redis is not a back door into an mcpd-smcp cluster, nor a window onto it: whoever can read the nodes' Redis
 * sees no call arguments or results, and whoever can publish there — a holder of the client API key included —
 * cannot route a call to a computer, replay or alter a captured one, or fake a computer's departure through the
 * Socket.IO adapter's channels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type RedisClientType } from 'redis';
import { startRedis, type RedisProc } from '../support/redis-proc.js';
import { SmcpOffice, toolCall } from '../support/smcp-office.js';
import { startSmcpProc, type SmcpProc } from '../support/smcp-server-proc.js';
import { RedisMessageSeal } from '../../internal/smcp/redis-message-seal.js';

const KEY = 'forgery-cluster-key';
let redis: RedisProc;
let node1: SmcpProc;
let node2: SmcpProc;
let attacker: RedisClientType;
const peers = new SmcpOffice('forged', { apiKey: KEY });

beforeAll(async () => {
  redis = await startRedis();
  node1 = await startSmcpProc(['--redis', redis.url], { SMCP_API_KEY: KEY });
  node2 = await startSmcpProc(['--redis', redis.url], { SMCP_API_KEY: KEY });
  attacker = createClient({ url: redis.url }) as RedisClientType;
  await attacker.connect();
});
afterAll(async () => {
  await attacker?.quit();
  for (const n of [node1, node2]) await n?.stop();
  await redis?.stop();
});

/** An agent on node 1 and a computer "far" on node 2, in a fresh office. */
async function crossNodeOffice() {
  const o = peers.office();
  const agent = await peers.agent(node1.url, o);
  const c = peers.computer(node2.url, 'far');
  expect(await c.join(o)).toEqual([true, null]);
  return { o, agent, c };
}

describe('messages between mcpd-smcp nodes through Redis', () => {
  it('drops a forged routed call, and a captured one replayed or altered', async () => {
    const { o, agent, c } = await crossNodeOffice();
    const channel = `smcp:link:${node2.node}`;
    const captured: Buffer[] = [];
    const spy = attacker.duplicate();
    await spy.connect();
    await spy.subscribe(channel, (m: Buffer) => void captured.push(m), true);
    try {
      expect(await agent.s.emitWithAck('client:tool_call', toolCall('far', { params: { message: 'real' } }))).toMatchObject({
        isError: false,
      });
      expect(captured).toHaveLength(1);
      const forged = {
        kind: 'call',
        id: 'evil',
        from: node1.node,
        sid: c.socket.id,
        office: o,
        name: 'far',
        event: 'client:tool_call',
        payload: toolCall('far', { params: { message: 'forged' } }),
        timeoutMs: 5000,
      };
      await attacker.publish(channel, JSON.stringify(forged));
      await attacker.publish(channel, captured[0]!);
      const altered = Buffer.from(captured[0]!);
      altered.writeUInt8(altered.readUInt8(altered.length - 3) ^ 1, altered.length - 3);
      await attacker.publish(channel, altered);
      // Delivered in order on node 2's subscription: once this one is answered, the three above were handled.
      expect(await agent.s.emitWithAck('client:tool_call', toolCall('far', { params: { message: 'after' } }))).toMatchObject({
        isError: false,
      });
      const messages = c.received.map((r) => (r.payload.params as { message: string }).message);
      expect(messages).toEqual(['real', 'after']);
      expect(node2.stderr()).toMatch(/dropped a Redis message on smcp:link:.*: not a sealed message/);
      expect(node2.stderr()).toMatch(/replayed/);
      expect(node2.stderr()).toMatch(/bad seal/);
    } finally {
      await spy.quit();
    }
  });

  it('a Redis reader sees no call arguments or results on any channel', async () => {
    const { agent, c } = await crossNodeOffice();
    const reader = attacker.duplicate();
    await reader.connect();
    const seen: Buffer[] = [];
    await reader.pSubscribe('*', (m: Buffer) => void seen.push(m), true);
    try {
      const marker = `argument-${Date.now()}-secret`;
      const answer = await agent.s.emitWithAck('client:tool_call', toolCall('far', { params: { message: marker } }));
      expect(JSON.stringify(answer)).toContain(marker); // the echo came back: arguments and result crossed Redis
      expect(c.received.map((r) => (r.payload.params as { message: string }).message)).toContain(marker);
      expect(seen.length).toBeGreaterThan(0);
      const wire = Buffer.concat(seen).toString('latin1');
      expect(wire).not.toContain(marker);
      expect(wire).not.toContain('client:tool_call');
    } finally {
      await reader.quit();
    }
  });

  it('a holder of the client API key cannot forge a node message', async () => {
    const { o, agent, c } = await crossNodeOffice();
    const channel = `smcp:link:${node2.node}`;
    const forged = {
      kind: 'call',
      id: 'evil-with-key',
      from: node1.node,
      sid: c.socket.id,
      office: o,
      name: 'far',
      event: 'client:tool_call',
      payload: toolCall('far', { params: { message: 'forged with the API key' } }),
      timeoutMs: 5000,
    };
    // Sealed exactly as the nodes seal, but under the key every agent and computer holds.
    await attacker.publish(channel, new RedisMessageSeal(KEY).seal(channel, JSON.stringify(forged)));
    expect(await agent.s.emitWithAck('client:tool_call', toolCall('far', { params: { message: 'after' } }))).toMatchObject({
      isError: false,
    });
    expect(c.received.map((r) => (r.payload.params as { message: string }).message)).toEqual(['after']);
    expect(node2.stderr()).toMatch(/dropped a Redis message on smcp:link:.*: bad seal/);
  });

  it("ignores a forged adapter message announcing a computer's departure", async () => {
    const { agent, c } = await crossNodeOffice();
    const req = toolCall('far', { tool_name: 'wait_for_cancel', timeout: 600 });
    const pending = agent.s.emitWithAck('client:tool_call', req);
    await c.firstRequest();
    const gone = ['mcpd:smcp-member-gone', { sid: c.socket.id, name: 'far', office_id: 'x', role: 'computer', node: node2.node }];
    await attacker.publish('socket.io-request#/smcp#', JSON.stringify({ uid: 'evil', type: 6, data: gone }));
    // The cancel travels after the forgery on the same Redis connections: a call failed by it would answer 404.
    agent.s.emit('server:tool_call_cancel', { agent: 'agent-1', req_id: req.req_id });
    expect(await pending).toEqual({ content: [], isError: true, _meta: { a2c_cancelled: true } });
  });
});
