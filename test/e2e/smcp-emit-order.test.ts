import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connected, officeCall } from '../support/smcp-peers.js';
import { SmcpOffice, toolCall } from '../support/smcp-office.js';
import { startSmcpNodes, type SmcpNodes } from '../support/smcp-redis-nodes.js';

/**
 * The reference SDK's agent emits `server:join_office` and, without waiting for its ack, its first
 * `client:*` request. Over Redis the join's seat claim takes a round trip, so a server that checks
 * membership on arrival refused the request `[4103] join an office first`. Requests after an un-acked join
 * or leave must see its effect, on every node.
 */
describe('mcpd-smcp keeps the order an agent emits (Redis)', () => {
  let cluster: SmcpNodes;
  const KEY = 'order-cluster-key';
  const peers = new SmcpOffice('order', { apiKey: KEY });
  beforeAll(async () => {
    cluster = await startSmcpNodes(2, { SMCP_API_KEY: KEY });
  });
  afterAll(async () => cluster?.stop());

  it('serves a request sent right after an un-acked join, and refuses one sent right after an un-acked leave', async () => {
    const [near, far] = cluster.nodes.map((n) => n.url) as [string, string];
    for (const [i, url] of [near, far].entries()) {
      const o = peers.office();
      const c = peers.computer(far, `c${i}`);
      expect(await c.join(o)).toEqual([true, null]);
      const s = peers.socket(url);
      await connected(s);
      const joined = officeCall(s, 'server:join_office', { role: 'agent', name: 'agent-1', office_id: o });
      const first = s.emitWithAck('client:tool_call', toolCall(`c${i}`, { agent: 'agent-1', params: { message: 'first' } }));
      expect(await joined).toEqual([true, null]);
      expect(await first).toEqual({ content: [{ type: 'text', text: 'first' }], isError: false });

      const left = officeCall(s, 'server:leave_office', { office_id: o });
      const after = s.emitWithAck('client:tool_call', toolCall(`c${i}`, { agent: 'agent-1', params: { message: 'after' } }));
      expect(await left).toEqual([true, null]);
      expect(await after).toMatchObject({ code: 4103 });
    }
  });
});
