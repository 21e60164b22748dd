import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ClientRequestError } from '../../contract/control/client-requests.js';
import type { JsonObject } from '../../shared/json.js';
import type { IncomingRequestHandler, SessionClient } from '../../contract/session/session-client.js';
import type { AdapterContext } from '../adapter.js';
import { clientRequestsAdapter } from './client-requests.js';
import { McpDispatcher } from '../mcp-dispatcher.js';

/** Stands in for the Session to the core: records notifications, keeps the request handler. */
class FakeSession {
  handler?: IncomingRequestHandler;
  notes: [string, JsonObject][] = [];
  isClosed = false;
  onRequest(h: IncomingRequestHandler) {
    this.handler = h;
  }
  notify(method: string, params: JsonObject) {
    this.notes.push([method, params]);
  }
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

async function setup(clientCaps: Record<string, unknown>, answer?: (signal: AbortSignal) => Promise<unknown>) {
  // The gateway's dispatcher, with no core behind it: only what the adapter registered here is used.
  const server = new McpDispatcher({ caller: 'alice', socket: '/nonexistent/mcpd-client-requests.sock', version: '1', log: () => {} });
  const connected: ((s: SessionClient, reconnect: boolean) => void)[] = [];
  const ctx = {
    server,
    caller: 'alice',
    forward: () => Promise.reject(new Error('unused')),
    onCoreNotification: () => {},
    onConnected: (h: (s: SessionClient, reconnect: boolean) => void) => connected.push(h),
    adapt: () => {},
    log: () => {},
  } as AdapterContext;
  clientRequestsAdapter().register(ctx);
  const client = new Client({ name: 'editor', version: '1' }, { capabilities: clientCaps });
  if (answer) client.setRequestHandler(CreateMessageRequestSchema, (_req, extra) => answer(extra.signal) as never);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  opened.push(client, server);
  const session = new FakeSession();
  for (const h of connected) h(session as unknown as SessionClient, false);
  return { client, server, session };
}

const sampling = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 };

describe('gateway adapter: server→client requests', () => {
  it("reports the client's capabilities to the core and answers a sampling request through the client", async () => {
    const { session } = await setup({ sampling: {} }, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'ok!' },
      model: 'm',
    }));
    expect(session.notes).toEqual([['notifications/mcpd/client_capabilities', { capabilities: { sampling: {} }, clientName: 'editor' }]]);
    const r = await session.handler!('sampling/createMessage', sampling, { signal: new AbortController().signal, timeoutMs: 5000 });
    expect(r).toEqual({ role: 'assistant', content: { type: 'text', text: 'ok!' }, model: 'm' });
  });

  it('refuses at once what the client did not declare, naming the capability', async () => {
    const { session } = await setup({});
    const e = (await session.handler!('elicitation/create', {}, { signal: new AbortController().signal }).catch(
      (x: unknown) => x,
    )) as ClientRequestError;
    expect(e).toBeInstanceOf(ClientRequestError);
    expect([e.code, e.message]).toEqual([
      -32601,
      'the MCP client of caller "alice" (editor) did not declare the "elicitation" capability, so it cannot answer elicitation/create',
    ]);
  });

  it('cancels toward the client when the core cancels', async () => {
    let clientSignal: AbortSignal | undefined;
    const { session } = await setup({ sampling: {} }, (signal) => {
      clientSignal = signal;
      return new Promise(() => {});
    });
    const ac = new AbortController();
    const p = session.handler!('sampling/createMessage', sampling, { signal: ac.signal, timeoutMs: 60_000 }).catch((x: unknown) => x);
    await expect.poll(() => clientSignal !== undefined).toBe(true);
    ac.abort('the server cancelled');
    await expect.poll(() => clientSignal?.aborted).toBe(true);
    expect(await p).toBeInstanceOf(Error);
  });

  it("passes the client's roots/list_changed to the core", async () => {
    const { client, session } = await setup({ roots: { listChanged: true } });
    await client.sendRootsListChanged();
    await expect.poll(() => session.notes.map(([m]) => m)).toContain('notifications/roots/list_changed');
  });
});
