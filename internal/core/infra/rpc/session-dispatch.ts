import type { ControlApi } from '../../../contract/control/control.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject, JsonValue } from '../../../shared/json.js';
import { isAbsent, type Area, type AreaMethod, type SessionCall } from '../../../contract/areas/area.js';
import { AREAS } from '../../../contract/areas/all-areas.js';
import type { SessionHandler, SessionRequestContext } from '../../../contract/session/session-handler.js';

/**
 * The Session projection of the areas: MCP method name → handler. Requests use MCP method names and
 * MCP-shaped params and results, so the gateway can pass them through without reshaping.
 */
function sessionHandlers(areas: readonly Area[]): Map<string, SessionHandler> {
  // A Map, not an object: a method name from the wire must never resolve to an inherited property ("constructor").
  const handlers = new Map<string, SessionHandler>();
  for (const m of areas.flatMap((a) => a.methods)) {
    if (isAbsent(m.session)) continue;
    if (handlers.has(m.name)) throw new Error(`Session method ${m.name} is declared twice`);
    handlers.set(m.name, 'handle' in m.session ? m.session.handle : callHandler(m, m.session));
  }
  return handlers;
}

function callHandler(m: AreaMethod, s: SessionCall<unknown, unknown>): SessionHandler {
  const invoke = m.invoke;
  if (!invoke) throw new Error(`area method ${m.name} has a Session projection but no core call`);
  return async (api, params, ctx) => {
    const req = s.fromMcp(params);
    const res = await invoke(api, req, {
      caller: ctx.session.caller,
      client: ctx.session.clientName,
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      onProgress: ctx.onProgress,
      routingKey: m.routed ? ctx.session.id : undefined,
      onResultJson: ctx.onResultJson,
    });
    return s.toMcp ? s.toMcp(res, req, ctx, api) : (res as JsonValue);
  };
}

const HANDLERS = sessionHandlers(AREAS);

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
  return handler(api, params, ctx);
}

/** The Session's methods (tests prove every declared one is here). */
export function sessionMethods(): string[] {
  return [...HANDLERS.keys()];
}
