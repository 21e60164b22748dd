import { describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION as SDK_LATEST, SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED } from '@modelcontextprotocol/sdk/types.js';
import {
  answerInitializeEarly,
  earlyInitializeAnswer,
  isModernFirstMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './early-initialize.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { gatewayAdapters, mergeCapabilities } from './adapter-host.js';
import { gatewayInstructions } from './early-initialize.js';
import { Gateway } from './mcp-gateway.js';
import { StdioServerLineTransport } from './stdio-server-transport.js';
import { jsonLinePipes } from '../../test/support/json-line-pipes.js';

const info = { caller: 'editor', version: '9.9.9' };
const initialize = (protocolVersion: string, id: number | string = 1) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: { roots: { listChanged: true }, sampling: {} }, clientInfo: { name: 'ed', version: '1' } },
});

/** A real gateway on a stdio transport over in-process pipes; every line it writes is collected. */
function gatewayOnPipes() {
  const { stdin, stdout, lines, send } = jsonLinePipes();
  const transport = new StdioServerLineTransport(stdin, stdout);
  // No core: nothing here reaches it (socket path that does not exist, no autostart).
  const gateway = new Gateway({ ...info, socket: '/nonexistent/mcpd-early-init.sock', log: () => undefined });
  const until = async (n: number) => {
    while (lines.length < n) await new Promise((r) => stdout.once('data', r));
  };
  return { stdin, transport, gateway, lines, send, until };
}

/** What the SDK's Server answers, given the gateway's capabilities and instructions: the answer the gateway keeps. */
async function sdkServerAnswer(message: JSONRPCMessage): Promise<unknown> {
  const server = new Server(
    { name: 'mcpd', version: info.version },
    { capabilities: mergeCapabilities(gatewayAdapters()), instructions: gatewayInstructions(info.caller) },
  );
  const [client, side] = InMemoryTransport.createLinkedPair();
  const answered = new Promise<unknown>((resolve) => (client.onmessage = resolve));
  await server.connect(side);
  await client.start();
  await client.send(message);
  const answer = await answered;
  await server.close();
  return answer;
}

describe('early initialize', () => {
  it('keeps the SDK’s protocol versions', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(SDK_LATEST);
    expect([...SUPPORTED_PROTOCOL_VERSIONS]).toEqual(SDK_SUPPORTED);
  });

  it.each([...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01'])(
    'answers %s early and later exactly as the SDK’s Server would',
    async (version) => {
      const g = gatewayOnPipes();
      await g.gateway.connect(g.transport);
      g.send(initialize(version, 7));
      await g.until(1);
      const early = JSON.parse(earlyInitializeAnswer(initialize(version, 7), info) ?? 'null') as unknown;
      expect(early).toEqual(g.lines[0]);
      expect(early).toEqual(await sdkServerAnswer(initialize(version, 7)));
      await g.gateway.close();
    },
  );

  it('leaves a malformed initialize and other first messages to the server', () => {
    const bad = initialize('2025-06-18');
    expect(earlyInitializeAnswer({ ...bad, params: { ...bad.params, clientInfo: { name: 'x' } } }, info)).toBeUndefined();
    expect(earlyInitializeAnswer({ ...bad, params: { ...bad.params, capabilities: { roots: true } } }, info)).toBeUndefined();
    expect(earlyInitializeAnswer({ jsonrpc: '2.0', id: 1, method: 'ping' }, info)).toBeUndefined();
  });

  it('answers before the server connects, once, and the server still learns the client from the replay', async () => {
    const g = gatewayOnPipes();
    const spoke = answerInitializeEarly(g.transport, info, g.stdin);
    g.send(initialize('2025-06-18', 'init'));
    await spoke;
    await g.until(1);
    expect(g.lines[0]).toMatchObject({
      id: 'init',
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'mcpd', version: '9.9.9' } },
    });
    // Sent while the gateway "loads": held, then handed to the server when it connects.
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    g.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await g.gateway.connect(g.transport);
    await g.until(2);
    expect(g.lines[1]).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(g.lines.filter((l) => l.id === 'init')).toHaveLength(1);
    expect(g.gateway.dispatcher.getClientCapabilities()).toEqual({ roots: { listChanged: true }, sampling: {} });
    expect(g.gateway.dispatcher.getClientVersion()).toEqual({ name: 'ed', version: '1' });
    await g.gateway.close();
  });

  it('answers nothing itself when the first message is not a well-formed initialize', async () => {
    const g = gatewayOnPipes();
    const spoke = answerInitializeEarly(g.transport, info, g.stdin);
    g.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    await spoke;
    await g.gateway.connect(g.transport);
    await g.until(1);
    // The dispatcher's error for it, naming what is missing, and no success answer besides.
    expect(g.lines).toHaveLength(1);
    expect(g.lines[0]).toMatchObject({ id: 1, error: { message: expect.stringContaining('clientInfo') as unknown } });
    await g.gateway.close();
  });
});

describe('the era of a stdio connection, from its first message', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const request = (method: string, params?: Record<string, unknown>) => ({
    jsonrpc: '2.0' as const,
    id: 1,
    method,
    ...(params ? { params } : {}),
  });

  it('is 2026-07-28 for server/discover and for any request whose _meta names a protocol version', () => {
    expect(isModernFirstMessage(request('server/discover', { _meta: meta }))).toBe(true);
    expect(isModernFirstMessage(request('server/discover'))).toBe(true);
    expect(isModernFirstMessage(request('tools/list', { _meta: meta }))).toBe(true);
    // A version the gateway does not serve still opens a 2026 connection (which answers -32022 with the supported list).
    expect(isModernFirstMessage(request('tools/call', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }))).toBe(true);
    expect(isModernFirstMessage(request('initialize', { _meta: meta }))).toBe(true);
  });

  it('is a 2025-11-25 session for initialize, requests without the 2026 _meta, notifications and nothing', () => {
    expect(isModernFirstMessage(initialize('2025-11-25'))).toBe(false);
    expect(isModernFirstMessage(request('tools/list', { _meta: { progressToken: 1 } }))).toBe(false);
    expect(isModernFirstMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
    expect(isModernFirstMessage(undefined)).toBe(false);
  });

  it('an initialize is not answered early when the first message opens a 2026 connection', async () => {
    const g = gatewayOnPipes();
    const spoke = answerInitializeEarly(g.transport, info, g.stdin);
    g.send(request('initialize', { ...initialize('2025-11-25').params, _meta: meta }));
    expect(isModernFirstMessage(await spoke)).toBe(true);
    // No answer was written ahead: the transport holds none for request 1 (the 2026 endpoint answers it, -32601).
    expect(g.transport.takeEarlyAnswer(1)).toBe(false);
    await g.transport.close();
  });
});
