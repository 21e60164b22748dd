import {
  CLIENT_CAPABILITIES_NOTIFICATION,
  clientCapabilityOf,
  ClientRequestError,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_METHOD_NOT_FOUND,
  ROOTS_LIST_CHANGED,
} from '../../contract/control/client-requests.js';
import type { JsonObject } from '../../shared/json.js';
import type { SessionClient } from '../../contract/session/session-client.js';
import type { SurfaceAdapter, AdapterContext } from '../adapter.js';

/**
 * Server→client requests (sampling, elicitation, roots) arrive from the core on the Session and go to
 * this gateway's MCP client; the client's capabilities and its roots/list_changed go to the core.
 */
export function clientRequestsAdapter(): SurfaceAdapter {
  return {
    capabilities: {},
    register(ctx) {
      let current: SessionClient | undefined;
      const live = () => (current && !current.isClosed ? current : undefined);
      const announce = (s: SessionClient) => {
        const capabilities = ctx.server.getClientCapabilities();
        // Before initialize the core knows nothing and leaves the decision to this gateway.
        if (!capabilities) return;
        s.notify(CLIENT_CAPABILITIES_NOTIFICATION, {
          capabilities,
          clientName: ctx.server.getClientVersion()?.name ?? '',
        });
      };
      ctx.onConnected((session) => {
        current = session;
        session.onRequest((method, params, opts) => askClient(ctx, method, params, opts));
        announce(session);
      });
      ctx.server.onInitialized(() => {
        const s = live();
        if (s) announce(s);
      });
      ctx.server.onClientNotification(ROOTS_LIST_CHANGED, () => {
        // Without a core there is nobody to tell; servers ask for roots again when they next need them.
        live()?.notify(ROOTS_LIST_CHANGED, {});
      });
    },
  };
}

/** Puts one request to the MCP client, refusing at once what it cannot answer. */
async function askClient(
  ctx: AdapterContext,
  method: string,
  params: JsonObject,
  opts: { signal: AbortSignal; timeoutMs?: number },
): Promise<JsonObject> {
  const cap = clientCapabilityOf(method);
  if (!cap) throw new ClientRequestError(JSONRPC_METHOD_NOT_FOUND, `the mcpd gateway does not forward "${method}" to MCP clients`);
  const caps = ctx.server.getClientCapabilities();
  const who = `the MCP client of caller "${ctx.caller}"${clientLabel(ctx)}`;
  if (!caps) throw new ClientRequestError(JSONRPC_INTERNAL_ERROR, `${who} has not finished initializing, so it cannot answer ${method}`);
  if (caps[cap] === undefined) {
    throw new ClientRequestError(JSONRPC_METHOD_NOT_FOUND, `${who} did not declare the "${cap}" capability, so it cannot answer ${method}`);
  }
  return ctx.server.request(method, params, opts);
}

function clientLabel(ctx: AdapterContext): string {
  const name = ctx.server.getClientVersion()?.name;
  return name ? ` (${name})` : '';
}
