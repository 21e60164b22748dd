import type { CallerSession, ControlApi } from '../control/control.js';
import type { JsonObject } from '../../shared/json.js';
import type { SessionRequestContext } from '../session/session-handler.js';

/** Per gateway session: subscribed URI → what ends that subscription. */
const sessionSubs = new WeakMap<CallerSession, Map<string, AbortController>>();

function subsOf(ctx: SessionRequestContext): Map<string, AbortController> {
  let m = sessionSubs.get(ctx.session);
  if (!m) {
    const subs = new Map<string, AbortController>();
    m = subs;
    sessionSubs.set(ctx.session, subs);
    // The session's subscriptions end with it, so the last one leaving unsubscribes downstream.
    ctx.onClose(() => {
      for (const ac of subs.values()) ac.abort();
      subs.clear();
    });
  }
  return m;
}

/** `resources/subscribe` on the Session: updates come back as `notifications/resources/updated`; idempotent per session. */
export async function subscribeSession(api: ControlApi, uri: string, ctx: SessionRequestContext): Promise<JsonObject> {
  const subs = subsOf(ctx);
  if (subs.has(uri)) return {}; // already subscribed: MCP subscribe is idempotent
  const ac = new AbortController();
  subs.set(uri, ac);
  // The request may be cancelled while the downstream subscribe is in flight; that ends it too.
  const onCancel = () => ac.abort();
  ctx.signal.addEventListener('abort', onCancel, { once: true });
  try {
    const updates = await api.resources.subscribe(ctx.session.caller, uri, ac.signal);
    void (async () => {
      for await (const p of updates) ctx.notify('notifications/resources/updated', p);
      // The core may end a subscription itself (its pool was removed): forget it, so a later
      // subscribe from the client is a real one, not an idempotent no-op.
      if (subs.get(uri) === ac) subs.delete(uri);
    })();
    return {};
  } catch (e) {
    if (subs.get(uri) === ac) subs.delete(uri);
    ac.abort();
    throw e;
  } finally {
    ctx.signal.removeEventListener('abort', onCancel);
  }
}

export function unsubscribeSession(uri: string, ctx: SessionRequestContext): JsonObject {
  const subs = subsOf(ctx);
  subs.get(uri)?.abort();
  subs.delete(uri);
  return {};
}
