import { CompleteRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../domain/json.js';
import { etagOf, type GatewayArea } from '../gateway-area.js';

/** prompts/list, prompts/get, completion/complete (progress and cancellation pass through) and list_changed. */
export function promptsArea(): GatewayArea {
  let served: string | undefined;
  return {
    capabilities: { prompts: { listChanged: true }, completions: {} },
    register(ctx) {
      const s = ctx.server;
      s.setRequestHandler(ListPromptsRequestSchema, async (req, extra) => {
        const result = (await ctx.forward('prompts/list', req.params?.cursor ? { cursor: req.params.cursor } : {}, extra)) as JsonObject;
        served = etagOf(result);
        return result as never;
      });
      s.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
        const params: JsonObject = { name: req.params.name, arguments: (req.params.arguments ?? {}) as JsonObject };
        return (await ctx.forward('prompts/get', params, extra, req.params._meta?.progressToken)) as never;
      });
      s.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
        const { _meta, ...params } = req.params;
        return (await ctx.forward('completion/complete', params as JsonObject, extra, _meta?.progressToken)) as never;
      });
      ctx.onCoreNotification('notifications/prompts/list_changed', (params) => {
        if (served === undefined || etagOf(params) === served) return;
        // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
        void s.sendPromptListChanged().catch(() => {});
      });
      ctx.onConnected((session, reconnect) => {
        if (!reconnect || served === undefined) return;
        session.request('prompts/list', {}).then(
          (page) => {
            if (etagOf(page as JsonObject) !== served) void s.sendPromptListChanged().catch(() => {});
          },
          (e: Error) => ctx.log(`prompts re-sync after reconnect failed: ${e.message}`),
        );
      });
    },
  };
}
