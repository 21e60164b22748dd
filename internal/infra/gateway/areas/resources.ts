import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../domain/json.js';
import type { JsonValue } from '../../../domain/json.js';
import { etagOf, type GatewayArea } from '../gateway-area.js';
import {
  contextResources,
  contextTemplates,
  isContextUri,
  takeChannels,
  readContextUri,
  subscribeContextUri,
  unsubscribeContextUri,
} from './context.js';

const asList = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
const cursorOf = (params: { cursor?: string } | undefined): JsonObject => (params?.cursor ? { cursor: params.cursor } : {});

/**
 * resources/list, resources/templates/list, resources/read, (un)subscribe; updates and list_changed
 * forwarded. The URIs this client subscribed to are remembered so a core restart re-subscribes them.
 */
export function resourcesArea(): GatewayArea {
  /** ETag of the last resource or template list given to the client (both come from one snapshot). */
  let served: string | undefined;
  const subscribed = new Set<string>();
  return {
    capabilities: { resources: { subscribe: true, listChanged: true } },
    register(ctx) {
      const s = ctx.server;
      s.setRequestHandler(ListResourcesRequestSchema, async (req, extra) => {
        const result = (await ctx.forward('resources/list', cursorOf(req.params), extra)) as JsonObject;
        served = etagOf(result);
        // The caller's Desktop and Finder come first, on the first page only, where they have content.
        const channels = takeChannels(result);
        if (!req.params?.cursor)
          result.resources = [...(contextResources(channels) as unknown as JsonObject[]), ...asList(result.resources)];
        return result as never;
      });
      s.setRequestHandler(ListResourceTemplatesRequestSchema, async (req, extra) => {
        const result = (await ctx.forward('resources/templates/list', cursorOf(req.params), extra)) as JsonObject;
        served = etagOf(result);
        const channels = takeChannels(result);
        if (!req.params?.cursor)
          result.resourceTemplates = [...(contextTemplates(channels) as unknown as JsonObject[]), ...asList(result.resourceTemplates)];
        return result as never;
      });
      s.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
        if (isContextUri(req.params.uri)) return (await readContextUri(ctx, req.params.uri, extra)) as never;
        return (await ctx.forward('resources/read', { uri: req.params.uri }, extra, req.params._meta?.progressToken)) as never;
      });
      s.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
        // The context area tracks (and re-subscribes) its own URIs.
        if (isContextUri(req.params.uri)) return (await subscribeContextUri(ctx, req.params.uri, extra)) as never;
        const result = await ctx.forward('resources/subscribe', { uri: req.params.uri }, extra);
        subscribed.add(req.params.uri);
        return result as never;
      });
      s.setRequestHandler(UnsubscribeRequestSchema, async (req, extra) => {
        if (isContextUri(req.params.uri)) return (await unsubscribeContextUri(ctx, req.params.uri, extra)) as never;
        subscribed.delete(req.params.uri);
        return (await ctx.forward('resources/unsubscribe', { uri: req.params.uri }, extra)) as never;
      });
      ctx.onCoreNotification('notifications/resources/updated', (params) => {
        if (typeof params.uri !== 'string' || !subscribed.has(params.uri)) return;
        // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
        void s.sendResourceUpdated(params as { uri: string }).catch(() => {});
      });
      ctx.onCoreNotification('notifications/resources/list_changed', (params) => {
        // A client that never listed has nothing stale; one that holds this very list needs no nudge.
        if (served === undefined || etagOf(params) === served) return;
        void s.sendResourceListChanged().catch(() => {});
      });
      ctx.onConnected((session, reconnect) => {
        if (!reconnect) return;
        // A new core knows nothing of this client's subscriptions: make them again.
        for (const uri of subscribed) {
          session
            .request('resources/subscribe', { uri })
            .catch((e: Error) => ctx.log(`re-subscribing ${uri} after reconnect failed: ${e.message}`));
        }
        if (served === undefined) return;
        session.request('resources/list', {}).then(
          (page) => {
            // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
            if (etagOf(page as JsonObject) !== served) void s.sendResourceListChanged().catch(() => {});
          },
          (e: Error) => ctx.log(`resources re-sync after reconnect failed: ${e.message}`),
        );
      });
    },
  };
}
