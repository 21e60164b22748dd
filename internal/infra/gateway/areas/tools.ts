import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../domain/json.js';
import { rawRequestHandlerOf } from '../../mcp/sdk-internals.js';
import { etagOf, type GatewayArea } from '../gateway-area.js';
import { callContextTool, contextTools, isContextTool, takeChannels } from './context.js';

/** tools/list, tools/call (progress and cancellation pass through) and list_changed. */
export function toolsArea(): GatewayArea {
  /** ETag of the last tool list this client was given; list_changed is sent only when it moves. */
  let served: string | undefined;
  return {
    capabilities: { tools: { listChanged: true } },
    register(ctx) {
      ctx.server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => {
        const result = (await ctx.forward('tools/list', req.params?.cursor ? { cursor: req.params.cursor } : {}, extra)) as JsonObject;
        // A continuation page pages the first one's snapshot: the first page's etag names the list.
        if (!req.params?.cursor) served = etagOf(result);
        // The Finder's query tool, for clients that only call tools; first page only, and only when some
        // server of the caller gives the Finder documents (the core says so on the first page).
        const channels = takeChannels(result);
        if (!req.params?.cursor && channels.finder)
          result.tools = [...(contextTools() as unknown as JsonObject[]), ...(Array.isArray(result.tools) ? result.tools : [])];
        return result as never;
      });
      // The hottest path of the gateway: registered past Server's result re-validation (see sdk-internals).
      rawRequestHandlerOf(ctx.server)(CallToolRequestSchema, async (req, extra) => {
        const params: JsonObject = { name: req.params.name, arguments: (req.params.arguments ?? {}) as JsonObject };
        if (isContextTool(req.params.name))
          return (await callContextTool(ctx, req.params.name, params.arguments as JsonObject, extra)) as never;
        return (await ctx.forward('tools/call', params, extra, req.params._meta?.progressToken)) as never;
      });
      ctx.onCoreNotification('notifications/tools/list_changed', (params) => {
        // A client that never listed has nothing stale; one that holds this very list needs no nudge.
        if (served === undefined || etagOf(params) === served) return;
        // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
        void ctx.server.sendToolListChanged().catch(() => {});
      });
      ctx.onConnected((session, reconnect) => {
        if (!reconnect || served === undefined) return;
        // After a core restart the list may differ from what the client holds: compare, and say so once.
        session.request('tools/list', {}).then(
          (page) => {
            if (etagOf(page as JsonObject) !== served) void ctx.server.sendToolListChanged().catch(() => {});
          },
          (e: Error) => ctx.log(`re-sync after reconnect failed: ${e.message}`),
        );
      });
    },
  };
}
