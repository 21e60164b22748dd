import type { JsonObject } from '../../shared/json.js';
import { etagOf, type SurfaceAdapter } from '../adapter.js';

/** tools/list, tools/call (progress and cancellation pass through) and list_changed. */
export function toolsAdapter(): SurfaceAdapter {
  /** ETag of the last tool list this client was given; list_changed is sent only when it moves. */
  let served: string | undefined;
  return {
    capabilities: { tools: { listChanged: true } },
    register(ctx) {
      ctx.adapt('tools/list', async (params, _extra, next) => {
        const result = (await next(params)) as JsonObject;
        // A continuation page pages the first one's snapshot: the first page's etag names the list.
        if (!params.cursor) served = etagOf(result);
        return result;
      });
      ctx.onCoreNotification('notifications/tools/list_changed', (params) => {
        // A client that never listed has nothing stale; one that holds this very list needs no nudge.
        if (served === undefined || etagOf(params) === served) return;
        // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
        void ctx.server.notify('notifications/tools/list_changed').catch(() => {});
      });
      ctx.onConnected((session, reconnect) => {
        if (!reconnect || served === undefined) return;
        // After a core restart the list may differ from what the client holds: compare, and say so once.
        session.request('tools/list', {}).then(
          (page) => {
            // A nudge to a client that has gone is moot (its transport's close ends the session); nothing waits on it.
            if (etagOf(page as JsonObject) !== served) void ctx.server.notify('notifications/tools/list_changed').catch(() => {});
          },
          (e: Error) => ctx.log(`re-sync after reconnect failed: ${e.message}`),
        );
      });
    },
  };
}
