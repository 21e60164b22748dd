// Fails when an MCP SDK upgrade moves what sdk-internals.ts relies on: read that file, then adapt it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { protocolSetRequestHandler, rawRequestHandlerOf } from './sdk-internals.js';

// A result Server's own handler would reject: content must be an array.
const ODD_RESULT = { content: 'not-an-array', extra: { kept: true } };
const anyResult = z.object({}).passthrough();

async function pair(register: (server: Server) => void): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = new Server({ name: 'sdk-internals-test', version: '0' }, { capabilities: { tools: {} } });
  register(server);
  const client = new Client({ name: 'c', version: '0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return { client, close: async () => (await client.close(), await server.close()) };
}

describe('MCP SDK internals used by mcpd', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('Protocol still has a base setRequestHandler that Server overrides', () => {
    expect(typeof protocolSetRequestHandler()).toBe('function');
    // If Server stopped overriding it, the bypass would be pointless: drop sdk-internals' use.
    expect(Server.prototype.setRequestHandler).not.toBe(Protocol.prototype.setRequestHandler);
  });

  it('a raw handler passes a tools/call result on as it is', async () => {
    const p = await pair((server) => rawRequestHandlerOf(server)(CallToolRequestSchema, async () => ODD_RESULT as never));
    close = p.close;
    const r = await p.client.request({ method: 'tools/call', params: { name: 'x', arguments: {} } }, anyResult);
    expect(r).toEqual(ODD_RESULT);
  });

  it("Server's own handler still re-validates the result (what the raw one skips)", async () => {
    const p = await pair((server) => server.setRequestHandler(CallToolRequestSchema, async () => ODD_RESULT as never));
    close = p.close;
    await expect(p.client.request({ method: 'tools/call', params: { name: 'x', arguments: {} } }, anyResult)).rejects.toThrow();
  });
});
