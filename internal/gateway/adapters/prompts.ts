import type { JsonObject } from '../../shared/json.js';
import { etagOf, type SurfaceAdapter } from '../adapter.js';

/**
 * prompts/list (its etag remembered), list_changed; prompts/get and completion/complete are plain
 * forwards (progress and cancellation pass through).
 */
export function promptsAdapter(): SurfaceAdapter {
  let served: string | undefined;
  return {
    capabilities: { prompts: { listChanged: true }, completions: {} },
    register(ctx) {
      const s = ctx.server;
      ctx.adapt('prompts/list', async (params, _extra, next) => {
        const result = (await next(params)) as JsonObject;
        served = etagOf(result);
        return result;
      });
      ctx.onCoreNotification('notifications/prompts/list_changed', (params) => {
        if (served === undefined || etagOf(params) === served) return;
        // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
        void s.notify('notifications/prompts/list_changed').catch(() => {});
      });
      ctx.onConnected((session, reconnect) => {
        if (!reconnect || served === undefined) return;
        session.request('prompts/list', {}).then(
          (page) => {
            // A nudge to a client that has gone is moot (its transport's close ends the session); nothing waits on it.
            if (etagOf(page as JsonObject) !== served) void s.notify('notifications/prompts/list_changed').catch(() => {});
          },
          (e: Error) => ctx.log(`prompts re-sync after reconnect failed: ${e.message}`),
        );
      });
    },
  };
}
