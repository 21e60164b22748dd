import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { NotificationsFirst } from './notifications-first.js';
import { must } from '../../../shared/must.js';

/** An in-memory transport whose peer answers in "chunks": several messages handed over in one turn. */
class ChunkTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  readonly sent: JSONRPCMessage[] = [];
  private waiting?: () => void;
  /** How a chunk reaches the SDK: straight, or through NotificationsFirst. */
  constructor(private readonly ordered: boolean) {}
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async send(m: JSONRPCMessage): Promise<void> {
    this.sent.push(m);
    this.waiting?.();
    if ('id' in m && 'method' in m && m.method === 'initialize')
      queueMicrotask(() =>
        this.chunk([
          {
            jsonrpc: '2.0',
            id: m.id,
            result: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
          },
        ]),
      );
  }
  nextRequest(): Promise<JSONRPCMessage> {
    return new Promise((r) => (this.waiting = () => r(must(this.sent.at(-1), 'the request just sent'))));
  }
  chunk(messages: JSONRPCMessage[]): void {
    const deliver = this.onmessage!;
    if (!this.ordered) return messages.forEach((m) => deliver(m));
    const q = new NotificationsFirst<JSONRPCMessage>((m) => {
      deliver(m);
      return 'method' in m && !('id' in m);
    });
    for (const m of messages) q.push(m);
  }
}

async function callWithProgressChunk(ordered: boolean): Promise<number[]> {
  const t = new ChunkTransport(ordered);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(t);
  const seen: number[] = [];
  const sent = t.nextRequest();
  const call = client.callTool({ name: 'x', arguments: {} }, undefined, { onprogress: (p) => seen.push(p.progress) });
  const req = (await sent) as { id: number; params: { _meta: { progressToken: number } } };
  const token = req.params._meta.progressToken;
  const progress = (n: number): JSONRPCMessage => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: token, progress: n },
  });
  // Two progress steps and the result, read together (one pipe chunk).
  t.chunk([progress(1), progress(2), { jsonrpc: '2.0', id: req.id, result: { content: [] } }]);
  await call;
  await client.close();
  return seen;
}

describe('NotificationsFirst with the real SDK client', () => {
  it('the SDK alone drops progress read in the same chunk as the result (why this exists)', async () => {
    expect(await callWithProgressChunk(false)).toEqual([]);
  });

  it('hands every notification to its handler before the result that followed it', async () => {
    expect(await callWithProgressChunk(true)).toEqual([1, 2]);
  });

  it('keeps the order of everything it queues', async () => {
    const out: string[] = [];
    const q = new NotificationsFirst<string>((m) => {
      out.push(m);
      return m.startsWith('n');
    });
    for (const m of ['r1', 'n1', 'r2', 'n2', 'n3', 'r3']) q.push(m);
    expect(out).toEqual(['r1', 'n1']);
    await new Promise((r) => setImmediate(r));
    expect(out).toEqual(['r1', 'n1', 'r2', 'n2', 'n3', 'r3']);
    q.push('r4');
    expect(out.at(-1)).toBe('r4');
  });
});
