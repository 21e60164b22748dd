import { McpdError } from '../../../domain/errors.js';
import type { JsonObject } from '../../../domain/json.js';
import { optionalString, type SessionHandler, type SessionRequestContext } from '../session-handler.js';

function opts(ctx: SessionRequestContext) {
  return { routingKey: ctx.session.id, signal: ctx.signal, timeoutMs: ctx.timeoutMs, onProgress: ctx.onProgress };
}

function objectParam(params: JsonObject, key: string, method: string): JsonObject {
  const v = params[key] ?? {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new McpdError('INVALID_ARGUMENT', `${method} "${key}" must be an object, got ${Array.isArray(v) ? 'an array' : typeof v}`);
  }
  return v;
}

/** Session methods for prompts and completion (MCP method name → handler). Results are MCP-shaped. */
export const promptSessionHandlers: Record<string, SessionHandler> = {
  'prompts/list': async (api, params, ctx) => {
    const page = await api.prompts.list(ctx.session.caller, optionalString(params, 'cursor'));
    const result: JsonObject = { prompts: page.items.map((p) => p.definition) };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    result._meta = { 'mcpd/etag': page.etag };
    return result;
  },
  'prompts/get': (api, params, ctx) => {
    const name = params.name;
    if (typeof name !== 'string' || name === '') throw new McpdError('INVALID_ARGUMENT', 'prompts/get needs a non-empty string "name"');
    return api.prompts.get(ctx.session.caller, name, objectParam(params, 'arguments', 'prompts/get'), opts(ctx));
  },
  'completion/complete': (api, params, ctx) => api.prompts.complete(ctx.session.caller, params, opts(ctx)),
};
