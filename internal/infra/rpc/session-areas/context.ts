import type { ContextChange, Subscription } from '../../../domain/control-areas.js';
import type { ControlApi } from '../../../domain/control.js';
import { McpdError } from '../../../domain/errors.js';
import type { JsonObject, JsonValue } from '../../../domain/json.js';
import { optionalString, type SessionHandler, type SessionRequestContext } from '../session-handler.js';

/** Core → gateway: the caller's desktop or finder changed; params `{kind, etag, reason}`. */
export const CONTEXT_UPDATED = 'mcpd/context/updated';

type Kind = 'desktop' | 'finder';

/** Per gateway session: the open watch of each kind. */
const sessionWatches = new Map<string, Map<Kind, Subscription<ContextChange>>>();

function optionalInt(params: JsonObject, key: string): number | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new McpdError('INVALID_ARGUMENT', `"${key}" must be an integer, got ${JSON.stringify(v)}`);
  return v;
}

function optionalStrings(params: JsonObject, key: string): string[] | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new McpdError('INVALID_ARGUMENT', `"${key}" must be an array of strings`);
  return v as string[];
}

function watchesOf(ctx: SessionRequestContext): Map<Kind, Subscription<ContextChange>> {
  const id = ctx.session.id;
  let m = sessionWatches.get(id);
  if (!m) {
    const watches = new Map<Kind, Subscription<ContextChange>>();
    m = watches;
    sessionWatches.set(id, watches);
    ctx.onClose(() => {
      for (const w of watches.values()) void w.return?.();
      sessionWatches.delete(id);
    });
  }
  return m;
}

/**
 * Opens the caller's watch and forwards each change as CONTEXT_UPDATED. The first item is the
 * current view: it is forwarded only when it differs from the etag the gateway last read.
 */
function subscribe(kind: Kind): SessionHandler {
  return async (api, params, ctx) => {
    const known = optionalString(params, 'etag');
    const watches = watchesOf(ctx);
    if (watches.has(kind)) return {};
    const sub = kind === 'desktop' ? api.context.watchDesktop(ctx.session.caller) : api.context.watchFinder(ctx.session.caller);
    watches.set(kind, sub);
    void (async () => {
      let first = true;
      for await (const c of sub) {
        const skip = first && (known === undefined || known === c.etag);
        first = false;
        if (!skip) ctx.notify(CONTEXT_UPDATED, { kind, etag: c.etag, reason: c.reason });
      }
    })();
    return {};
  };
}

function unsubscribe(kind: Kind): SessionHandler {
  return async (_api, _params, ctx) => {
    const watches = watchesOf(ctx);
    void watches.get(kind)?.return?.();
    watches.delete(kind);
    return {};
  };
}

async function readDesktop(api: ControlApi, params: JsonObject, ctx: SessionRequestContext): Promise<JsonValue> {
  const v = await api.context.desktop(ctx.session.caller, optionalInt(params, 'size'), optionalString(params, 'window'));
  return { windows: v.windows, warnings: v.warnings, etag: v.etag };
}

async function queryFinder(api: ControlApi, params: JsonObject, ctx: SessionRequestContext): Promise<JsonValue> {
  const v = await api.context.finder(ctx.session.caller, {
    keywords: optionalStrings(params, 'keywords'),
    fileType: optionalString(params, 'file_type'),
    offset: optionalInt(params, 'offset'),
    limit: optionalInt(params, 'limit'),
  });
  return { documents: v.documents, total_count: v.totalCount };
}

/**
 * Session methods for context (MCP-style method name → handler). The gateway maps the
 * `mcpd://desktop` and `mcpd://finder` resources onto them (docs/desktop.md, docs/finder.md).
 */
export const contextSessionHandlers: Record<string, SessionHandler> = {
  'mcpd/desktop/read': readDesktop,
  'mcpd/desktop/subscribe': subscribe('desktop'),
  'mcpd/desktop/unsubscribe': unsubscribe('desktop'),
  'mcpd/finder/query': queryFinder,
  'mcpd/finder/subscribe': subscribe('finder'),
  'mcpd/finder/unsubscribe': unsubscribe('finder'),
};
