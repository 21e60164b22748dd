import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import { isAbsent, type Area } from '../contract/areas/area.js';
import { rawRequestHandlerOf } from './sdk-internals.js';
import type { ForwardExtra, MethodAdapter } from './adapter.js';

type Forward = (method: string, params: JsonObject, extra: ForwardExtra, progressToken?: string | number) => Promise<JsonValue>;

/**
 * The MCP gateway projection of the areas: one request handler per declared method, which forwards the
 * request to the same Session method — through the gateway's method adapter when it has one (lists that
 * add the context channels, subscriptions it must re-make after a core restart …).
 */
export function registerAreaHandlers(
  server: Server,
  areas: readonly Area[],
  adapters: ReadonlyMap<string, MethodAdapter>,
  forward: Forward,
): void {
  const declared = new Set<string>();
  for (const m of areas.flatMap((a) => a.methods)) {
    if (isAbsent(m.gateway)) continue;
    declared.add(m.name);
    const name = m.name;
    const adapter = adapters.get(name);
    const handler = async (
      req: { params?: { _meta?: { progressToken?: string | number } } & Record<string, unknown> },
      extra: ForwardExtra,
    ) => {
      const { _meta, ...params } = req.params ?? {};
      const next = (p: JsonObject) => forward(name, p, extra, _meta?.progressToken);
      return (await (adapter ? adapter(params as JsonObject, extra, next) : next(params as JsonObject))) as never;
    };
    const register = m.gateway.raw ? rawRequestHandlerOf(server) : server.setRequestHandler.bind(server);
    register(m.gateway.schema as never, handler as never);
  }
  // An adapter of a method no area declares for the gateway would never run: say so at startup.
  for (const name of adapters.keys()) {
    if (!declared.has(name)) throw new Error(`gateway adapter for ${name}, which no area declares for the gateway`);
  }
}
