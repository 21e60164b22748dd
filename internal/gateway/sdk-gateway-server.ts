import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as z from 'zod';
import type { JsonObject } from '../shared/json.js';
import { timerDelay } from '../shared/timer-limit.js';
import type { GatewayServer } from './adapter.js';

/** Client results stay opaque: only that they are objects is checked. */
const RawResult = z.looseObject({});

/** The areas' view (GatewayServer) of the SDK's Server, as the HTTP gateway and its lanes run it. */
export function sdkGatewayServer(server: Server): GatewayServer {
  return {
    getClientCapabilities: () => server.getClientCapabilities() as JsonObject | undefined,
    getClientVersion: () => server.getClientVersion(),
    onInitialized(handler) {
      const previous = server.oninitialized;
      server.oninitialized = () => {
        previous?.();
        handler();
      };
    },
    onClientNotification(method, handler) {
      // The SDK finds the method in the schema's literal; the params stay as the client sent them.
      const schema = z.object({ method: z.literal(method), params: z.looseObject({}).optional() });
      server.setNotificationHandler(schema, (n) => handler((n.params ?? {}) as JsonObject));
    },
    async request(method, params, opts) {
      const timeout = opts.timeoutMs === undefined ? undefined : timerDelay(opts.timeoutMs);
      return (await server.request({ method, params }, RawResult, { signal: opts.signal, timeout })) as JsonObject;
    },
    notify: (method, params) => server.notification(params === undefined ? { method } : ({ method, params } as never)),
  };
}
