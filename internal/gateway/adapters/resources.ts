import type { SurfaceAdapter } from '../adapter.js';
import { trackLists } from './list-tracking.js';

/**
 * resources/list, resources/templates/list, resources/read, (un)subscribe; updates and list_changed
 * forwarded. The URIs this client subscribed to are remembered so a core restart re-subscribes them.
 */
export function resourcesAdapter(): SurfaceAdapter {
  const subscribed = new Set<string>();
  return {
    capabilities: { resources: { subscribe: true, listChanged: true } },
    register(ctx) {
      const s = ctx.server;
      // Resources and templates come from one snapshot and share its etag.
      trackLists(ctx, {
        methods: ['resources/list', 'resources/templates/list'],
        changed: 'notifications/resources/list_changed',
        what: 'resources',
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
      ctx.onConnected((session, reconnect) => {
        if (!reconnect) return;
        // A new core knows nothing of this client's subscriptions: make them again.
        for (const uri of subscribed) {
          session
            .request('resources/subscribe', { uri })
            .catch((e: Error) => ctx.log(`re-subscribing ${uri} after reconnect failed: ${e.message}`));
        }
      });
    },
  };
}
