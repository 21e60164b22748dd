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
 * The list bookkeeping every list area of the gateway shares: the etag of the list the client knows —
 * the first page last given to it, or the list it was last told of — is remembered; the core's
 * list_changed reaches the client only when it names another list (a client that never listed has
 * nothing stale), and after a reconnect to a core (a restart) the list is taken again and the client is
 * told once if it differs. Being told counts as knowing: a change back to a list the client once fetched
 * is news too (a 2026-07-28 listen stream's lane lists once and never again, see era2026/listen.ts).
 */
export function trackLists(ctx: AdapterContext, o: TrackedLists): void {
  let known: string | undefined;
  for (const method of o.methods) {
    ctx.adapt(method, async (params, _extra, next) => {
      const result = (await next(params)) as JsonObject;
      // A continuation page pages the first one's snapshot: the first page's etag names the list.
      if (!params.cursor) known = etagOf(result);
      return result;
    });
  }
  /** Tells the client its list changed to the one `etag` names (kept unless the core named none). */
  const nudge = (etag: string | undefined) => {
    known = etag ?? known;
    // Ignored: a notification to a client that has gone is moot; the transport's close ends the session.
    void ctx.server.notify(o.changed).catch(() => {});
  };
  ctx.onCoreNotification(o.changed, (params) => {
    const etag = etagOf(params);
    if (known !== undefined && etag !== known) nudge(etag);
  });
  ctx.onConnected((session, reconnect) => {
    if (!reconnect || known === undefined) return;
    session.request(o.methods[0], {}).then(
      (page) => {
        const etag = etagOf(page as JsonObject);
        if (etag !== known) nudge(etag);
      },
      (e: Error) => ctx.log(`${o.what} re-sync after reconnect failed: ${e.message}`),
    );
  });
}
