import type { JsonObject } from '../../shared/json.js';
import { etagOf, type SurfaceAdapter } from '../adapter.js';

/**
 * resources/list, resources/templates/list, resources/read, (un)subscribe; updates and list_changed
 * forwarded. The URIs this client subscribed to are remembered so a core restart re-subscribes them.
 */
export function resourcesAdapter(): SurfaceAdapter {
  /** ETag of the last resource or template list given to the client (both come from one snapshot). */
  let served: string | undefined;
  const subscribed = new Set<string>();
  return {
    capabilities: { resources: { subscribe: true, listChanged: true } },
    register(ctx) {
      const s = ctx.server;
      ctx.adapt('resources/list', async (params, _extra, next) => {
        const result = (await next(params)) as JsonObject;
        served = etagOf(result);
        return result;
      });
      ctx.adapt('resources/templates/list', async (params, _extra, next) => {
        const result = (await next(params)) as JsonObject;
        served = etagOf(result);
        return result;
      });
      ctx.adapt('resources/subscribe', async (params, _extra, next) => {
        const uri = params.uri as string;
        const result = await next({ uri });
        subscribed.add(uri);
        return result;
      });
      ctx.adapt('resources/unsubscribe', (params, _extra, next) => {
        const uri = params.uri as string;
        subscribed.delete(uri);
        return next({ uri });
      });
      ctx.onCoreNotification('notifications/resources/updated', (params) => {
        if (typeof params.uri !== 'string' || !subscribed.has(params.uri)) return;
        // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
        void s.notify('notifications/resources/updated', { uri: params.uri }).catch(() => {});
      });
      ctx.onCoreNotification('notifications/resources/list_changed', (params) => {
        // A client that never listed has nothing stale; one that holds this very list needs no nudge.
        if (served === undefined || etagOf(params) === served) return;
        // A nudge to a client that has gone is moot (its transport's close ends the session); nothing waits on it.
        void s.notify('notifications/resources/list_changed').catch(() => {});
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
            if (etagOf(page as JsonObject) !== served) void s.notify('notifications/resources/list_changed').catch(() => {});
          },
          (e: Error) => ctx.log(`resources re-sync after reconnect failed: ${e.message}`),
        );
      });
    },
  };
}
