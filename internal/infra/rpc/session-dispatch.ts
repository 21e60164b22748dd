import type { ControlApi, ServerFailure } from '../../domain/control.js';
import { CONTEXT_CHANNELS_META } from '../../domain/context-channels.js';
import { optionalString, type SessionHandler, type SessionRequestContext } from './session-handler.js';
import { McpdError } from '../../domain/errors.js';
import type { JsonObject, JsonValue } from '../../domain/json.js';
import { contextSessionHandlers } from './session-areas/context.js';
import { logSessionHandlers } from './session-areas/logs.js';
import { promptSessionHandlers } from './session-areas/prompts.js';
import { resourceSessionHandlers } from './session-areas/resources.js';

/**
 * Session requests use MCP method names and MCP-shaped params and results, so the gateway
 * can pass them through without reshaping.
 */
const TOOL_HANDLERS: Record<string, SessionHandler> = {
  'tools/list': async (api, params, ctx) => {
    const page = await api.listTools(ctx.session.caller, optionalString(params, 'cursor'));
    warnListingFailures(page.failures ?? [], ctx);
    const result: JsonObject = { tools: page.tools.map((t) => t.definition) };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    result._meta = { 'mcpd/etag': page.etag };
    // The first page says which context channels (mcpd_finder …) the gateway offers alongside.
    if (!params.cursor) result._meta[CONTEXT_CHANNELS_META] = { ...(await api.resources.channels(ctx.session.caller)) };
    return result;
  },
  'tools/call': async (api, params, ctx) => {
    const name = params.name;
    if (typeof name !== 'string' || name === '') {
      throw new McpdError('INVALID_ARGUMENT', 'tools/call needs a non-empty string "name"');
    }
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new McpdError(
        'INVALID_ARGUMENT',
        `tools/call "arguments" must be an object, got ${Array.isArray(args) ? 'an array' : typeof args}`,
      );
    }
    return api.callTool(ctx.session.caller, name, args, {
      routingKey: ctx.session.id,
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      onProgress: ctx.onProgress,
      onResultJson: ctx.onResultJson,
    });
  },
  ping: async () => ({}),
};

/** A Map, not an object: a method name from the wire must never resolve to an inherited property ("constructor"). */
const HANDLERS = new Map<string, SessionHandler>(
  [TOOL_HANDLERS, resourceSessionHandlers, promptSessionHandlers, logSessionHandlers, contextSessionHandlers].flatMap((h) =>
    Object.entries(h),
  ),
);

/**
 * Requests that do work on a server: refused once a stop began, waited for while it drains. (Tool
 * calls pass the same gate inside the core, whichever transport brings them.)
 */
const CALLS = new Set(['resources/read', 'prompts/get', 'completion/complete']);

export function dispatchSessionRequest(
  api: ControlApi,
  method: string,
  params: JsonObject,
  ctx: SessionRequestContext,
): Promise<JsonValue> {
  const handler = HANDLERS.get(method);
  if (!handler) {
    return Promise.reject(
      new McpdError(
        'NOT_FOUND',
        `method ${JSON.stringify(method)} is not served by this core (known: ${[...HANDLERS.keys()].join(', ')})`,
        {
          specCode: -32601,
        },
      ),
    );
  }
  if (!CALLS.has(method)) return handler(api, params, ctx);
  return api.calls.run(method, ctx.signal, (signal) => handler(api, params, { ...ctx, signal }));
}

/** Per session: the "server: error" pairs its client was already warned about. */
const warned = new Map<string, Set<string>>();

/**
 * A server left out of the list is a failure the client's user should see, where they look: one
 * warning `notifications/message` per failing server (and distinct error) per session.
 */
function warnListingFailures(failures: readonly ServerFailure[], ctx: SessionRequestContext): void {
  if (failures.length === 0) return;
  const id = ctx.session.id;
  let seen = warned.get(id);
  if (!seen) {
    seen = new Set();
    warned.set(id, seen);
    ctx.onClose(() => warned.delete(id));
  }
  for (const f of failures) {
    const key = `${f.server}\u0000${f.error}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ctx.notify('notifications/message', {
      level: 'warning',
      logger: 'mcpd',
      data: {
        event: 'tools.list_failed',
        server: f.server,
        message: `server ${f.server} could not be listed, its tools are missing: ${f.error}`,
      },
    });
  }
}
