import type { CallerSession, ControlApi } from '../../../domain/control.js';
import { McpdError } from '../../../domain/errors.js';
import type { JsonObject } from '../../../domain/json.js';
import { CONTEXT_CHANNELS_META } from '../../../domain/context-channels.js';
import { optionalString, type SessionHandler, type SessionRequestContext } from '../session-handler.js';

/** Per gateway session: subscribed URI → what ends that subscription. */
const sessionSubs = new WeakMap<CallerSession, Map<string, AbortController>>();

function requiredUri(params: JsonObject, method: string): string {
  const uri = params.uri;
  if (typeof uri !== 'string' || uri === '') throw new McpdError('INVALID_ARGUMENT', `${method} needs a non-empty string "uri"`);
  return uri;
}

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

async function subscribe(api: ControlApi, params: JsonObject, ctx: SessionRequestContext): Promise<JsonObject> {
  const uri = requiredUri(params, 'resources/subscribe');
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

function unsubscribe(params: JsonObject, ctx: SessionRequestContext): JsonObject {
  const uri = requiredUri(params, 'resources/unsubscribe');
  const subs = subsOf(ctx);
  subs.get(uri)?.abort();
  subs.delete(uri);
  return {};
}

/** The first page says which context channels (mcpd://desktop, mcpd://finder) the gateway lists first. */
async function withChannels(
  api: ControlApi,
  ctx: SessionRequestContext,
  cursor: string | undefined,
  result: JsonObject,
): Promise<JsonObject> {
  if (cursor === undefined) (result._meta as JsonObject)[CONTEXT_CHANNELS_META] = { ...(await api.resources.channels(ctx.session.caller)) };
  return result;
}

function withEtag(result: JsonObject, etag: string, nextCursor: string | undefined): JsonObject {
  if (nextCursor) result.nextCursor = nextCursor;
  result._meta = { 'mcpd/etag': etag };
  return result;
}

/** Session methods for resources (MCP method name → handler). Results are MCP-shaped. */
export const resourceSessionHandlers: Record<string, SessionHandler> = {
  'resources/list': async (api, params, ctx) => {
    const cursor = optionalString(params, 'cursor');
    const page = await api.resources.list(ctx.session.caller, cursor);
    return withChannels(api, ctx, cursor, withEtag({ resources: page.items.map((r) => r.definition) }, page.etag, page.nextCursor));
  },
  'resources/templates/list': async (api, params, ctx) => {
    const cursor = optionalString(params, 'cursor');
    const page = await api.resources.listTemplates(ctx.session.caller, cursor);
    return withChannels(api, ctx, cursor, withEtag({ resourceTemplates: page.items.map((t) => t.definition) }, page.etag, page.nextCursor));
  },
  'resources/read': (api, params, ctx) =>
    api.resources.read(ctx.session.caller, requiredUri(params, 'resources/read'), {
      routingKey: ctx.session.id,
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      onProgress: ctx.onProgress,
    }),
  'resources/subscribe': (api, params, ctx) => subscribe(api, params, ctx),
  'resources/unsubscribe': async (_api, params, ctx) => unsubscribe(params, ctx),
};
