import type { JsonObject } from '../../shared/json.js';
import { etagOf, type AdapterContext } from '../adapter.js';

export interface TrackedLists {
  /** The list methods whose first page names the list the client holds (resources and templates share one snapshot). */
  methods: readonly [string, ...string[]];
  /** The core's and the client's change notification, e.g. `notifications/prompts/list_changed`. */
  changed: string;
  /** What is listed, for the log ("tools", "prompts", "resources"). */
  what: string;
}

/**
 * The list bookkeeping every list area of the gateway shares: the etag of the first page last given to
 * the client is remembered; the core's list_changed reaches the client only when it names another list
 * (a client that never listed has nothing stale), and after a reconnect to a core (a restart) the list
 * is taken again and the client is told once if it differs.
 */
export function trackLists(ctx: AdapterContext, o: TrackedLists): void {
  let served: string | undefined;
  for (const method of o.methods) {
    ctx.adapt(method, async (params, _extra, next) => {
      const result = (await next(params)) as JsonObject;
      // A continuation page pages the first one's snapshot: the first page's etag names the list.
      if (!params.cursor) served = etagOf(result);
      return result;
    });
  }
  const nudge = () => {
    // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
    void ctx.server.notify(o.changed).catch(() => {});
  };
  ctx.onCoreNotification(o.changed, (params) => {
    if (served !== undefined && etagOf(params) !== served) nudge();
  });
  ctx.onConnected((session, reconnect) => {
    if (!reconnect || served === undefined) return;
    session.request(o.methods[0], {}).then(
      (page) => {
        if (etagOf(page as JsonObject) !== served) nudge();
      },
      (e: Error) => ctx.log(`${o.what} re-sync after reconnect failed: ${e.message}`),
    );
  });
}
