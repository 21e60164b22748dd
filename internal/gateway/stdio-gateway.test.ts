import { afterEach, describe, expect, it } from 'vitest';
import { answerInitializeEarly } from './early-initialize.js';
import { StdioGateway } from './stdio-gateway.js';
import { StdioServerLineTransport } from './stdio-server-transport.js';
import { jsonLinePipes } from '../../test/support/json-line-pipes.js';

const info = { caller: 'editor', version: '9.9.9' };
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'ed', version: '1' } },
};

const opened: StdioGateway[] = [];
afterEach(async () => {
  for (const g of opened.splice(0)) await g.close();
});

/** The stdio gateway on in-process pipes, started as mcpdmcp starts it; no core (a socket that does not exist). */
async function stdioOnPipes() {
  const { stdin, stdout, lines, send } = jsonLinePipes();
  const answer = async (id: number) => {
    for (;;) {
      const found = lines.find((l) => l.id === id && !('method' in l));
      if (found) return found;
      await new Promise((r) => stdout.once('data', r));
    }
  };
  const transport = new StdioServerLineTransport(stdin, stdout);
  const early = answerInitializeEarly(transport, info, stdin);
  send(INIT);
  await early;
  const gateway = new StdioGateway(
    { ...info, socket: '/nonexistent/mcpd-stdio-gateway.sock', coreWaitMs: 1, log: () => undefined },
    transport,
  );
  opened.push(gateway);
  await gateway.start();
  return { gateway, lines, send, answer };
}

describe("the stdio gateway (the gateway's one dispatcher, no SDK Server)", () => {
  it('answers initialize once, learns the client from it, and answers ping', async () => {
    const g = await stdioOnPipes();
    expect(((await g.answer(1)).result as { serverInfo: unknown }).serverInfo).toEqual({ name: 'mcpd', version: '9.9.9' });
    g.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await g.answer(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(g.lines.filter((l) => l.id === 1)).toHaveLength(1);
    expect(g.gateway.dispatcher.getClientCapabilities()).toEqual({ sampling: {} });
    expect(g.gateway.dispatcher.getClientVersion()).toEqual({ name: 'ed', version: '1' });
  });

  it('refuses an unknown method with -32601 and bad params with -32602 naming what was wrong', async () => {
    const g = await stdioOnPipes();
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/unknown', params: {} });
    expect((await g.answer(2)).error).toEqual({ code: -32601, message: 'Method not found' });
    g.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 5 } });
    expect((await g.answer(3)).error).toMatchObject({ code: -32602, message: 'Invalid params for tools/list: cursor must be a string' });
    g.send({ jsonrpc: '2.0', id: 4, method: 'logging/setLevel', params: { level: 'loud' } });
    expect((await g.answer(4)).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid params for logging\/setLevel: level must be one of debug/) as unknown,
    });
    // Checked by the SDK's own schema for the method, loaded for it.
    g.send({ jsonrpc: '2.0', id: 5, method: 'resources/read', params: {} });
    expect((await g.answer(5)).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid params for resources\/read: params\.uri/) as unknown,
    });
  });

  it('forwards a well-formed request to the core and says when there is none', async () => {
    const g = await stdioOnPipes();
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const e = (await g.answer(2)).error as { code: number; message: string };
    expect(e.code).toBe(-32603);
    expect(e.message).toMatch(/mcpd-stdio-gateway\.sock/);
  });
});
