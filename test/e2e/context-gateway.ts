/**
 * An MCP client whose server side is the gateway's context helpers (internal/infra/gateway/areas/
 * context.ts) over a real Session to a real core: the same code mcpdmcp runs once the resources and
 * tools areas route the mcpd:// URIs and the mcpd_finder tool to those helpers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../internal/domain/json.js';
import {
  callContextTool,
  contextArea,
  contextResources,
  contextTemplates,
  contextTools,
  readContextUri,
  subscribeContextUri,
  unsubscribeContextUri,
} from '../../internal/infra/gateway/areas/context.js';
import { toJsonRpcError } from '../../internal/infra/gateway/error-map.js';
import type { GatewayContext } from '../../internal/infra/gateway/gateway-area.js';
import { createControlClient } from '../../internal/infra/rpc/control-client.js';
import { SessionClient } from '../../internal/infra/rpc/session-client.js';

export interface ContextClient {
  client: Client;
  close(): Promise<void>;
}

export async function contextClient(socket: string, caller: string): Promise<ContextClient> {
  const control = createControlClient(socket);
  const session = await SessionClient.open(control, { caller, pid: process.pid, clientName: 'context-test', previousSessionId: '' });
  const server = new Server({ name: 'context-test', version: '1.0.0' }, { capabilities: { resources: { subscribe: true }, tools: {} } });
  const handlers = new Map<string, ((p: JsonObject) => void)[]>();
  session.onNotification((method, params) => handlers.get(method)?.forEach((h) => h(params)));
  const ctx: GatewayContext = {
    server,
    caller,
    forward: (method, params, extra) => session.request(method, params, { signal: extra.signal }).catch((e: unknown) => Promise.reject(toJsonRpcError(e))),
    onCoreNotification: (method, h) => void handlers.set(method, [...(handlers.get(method) ?? []), h]),
    onConnected: () => {},
    log: () => {},
  };
  contextArea().register(ctx);
  // What areas/resources.ts and areas/tools.ts do for the context URIs and tool.
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: contextResources() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: contextTemplates() }));
  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) => readContextUri(ctx, req.params.uri, extra));
  server.setRequestHandler(SubscribeRequestSchema, (req, extra) => subscribeContextUri(ctx, req.params.uri, extra));
  server.setRequestHandler(UnsubscribeRequestSchema, (req, extra) => unsubscribeContextUri(ctx, req.params.uri, extra));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: contextTools() }));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => callContextTool(ctx, req.params.name, (req.params.arguments ?? {}) as JsonObject, extra));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'context-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close().catch(() => {});
      session.close();
      control.close();
    },
  };
}
