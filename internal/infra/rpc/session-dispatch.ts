import type { ControlApi } from '../../domain/control.js';
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
    const result: JsonObject = { tools: page.tools.map((t) => t.definition) };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    result._meta = { 'mcpd/etag': page.etag };
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

/** Requests that do work on a server: refused once a stop began, waited for while it drains. */
const CALLS = new Set(['tools/call', 'resources/read', 'prompts/get', 'completion/complete']);

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
