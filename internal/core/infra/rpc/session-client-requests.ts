import {
  CLIENT_CAPABILITIES_NOTIFICATION,
  ClientRequestError,
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_REQUEST_TIMEOUT,
  ROOTS_LIST_CHANGED,
  type ClientChannel,
} from '../../../contract/control/client-requests.js';
import type { CallerSession, ControlApi } from '../../../contract/control/control.js';
import type { JsonObject } from '../../../shared/json.js';
import { decodeObject, encodeJson } from '../../../contract/session/json-bytes.js';
import { cappedTimeout } from '../../../shared/timer-limit.js';
import type { SessionNotification, SessionResponse, SessionServerMessage } from '../../../contract/gen/mcpd/control/v1/session.js';

interface Pending {
  resolve: (v: JsonObject) => void;
  reject: (e: Error) => void;
}

/** The core's end of server→client requests on one Session: ids of this direction are the core's own. */
export class GatewayChannel implements ClientChannel {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closedWhy?: string;

  constructor(
    private readonly send: (msg: SessionServerMessage) => void,
    private readonly who: string,
  ) {}

  request(method: string, params: JsonObject, opts: { signal?: AbortSignal; timeoutMs: number }): Promise<JsonObject> {
    if (this.closedWhy !== undefined) return Promise.reject(this.goneError(method));
    if (opts.signal?.aborted) return Promise.reject(cancelledError(method));
    const id = this.nextId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const settle = (fn: () => void) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const cancel = (reason: string, err: ClientRequestError) => {
        this.send({ cancel: { id, reason } });
        settle(() => reject(err));
      };
      const onAbort = () => cancel('the server cancelled its request', cancelledError(method));
      // Also guards against a gateway that never answers (an older one ignores requests).
      const timer = cappedTimeout(
        () =>
          cancel(
            'timed out',
            new ClientRequestError(
              JSONRPC_REQUEST_TIMEOUT,
              `the MCP client of ${this.who} did not answer ${method} within ${opts.timeoutMs} ms`,
            ),
          ),
        opts.timeoutMs,
      );
      this.pending.set(id, { resolve: (v) => settle(() => resolve(v)), reject: (e) => settle(() => reject(e)) });
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.send({ request: { id, method, paramsJson: encodeJson(params), timeoutMs: Math.min(opts.timeoutMs, 2 ** 31 - 1) } });
    });
  }

  onResponse(r: SessionResponse): void {
    const p = this.pending.get(r.id);
    if (!p) return;
    if (r.error) {
      const data = r.error.dataJson?.length ? safeObject(r.error.dataJson) : undefined;
      p.reject(new ClientRequestError(r.error.specCode || JSONRPC_INTERNAL_ERROR, r.error.message, data));
      return;
    }
    try {
      p.resolve(decodeObject(r.resultJson, 'client result'));
    } catch (e) {
      p.reject(
        new ClientRequestError(JSONRPC_INTERNAL_ERROR, `the MCP client of ${this.who} sent an unreadable result: ${(e as Error).message}`),
      );
    }
  }

  /** The gateway is gone: every request waiting on it fails at once. */
  close(why: string): void {
    if (this.closedWhy !== undefined) return;
    this.closedWhy = why;
    for (const [, p] of [...this.pending]) p.reject(this.goneError('its request'));
  }

  private goneError(method: string): ClientRequestError {
    return new ClientRequestError(JSONRPC_INTERNAL_ERROR, `the MCP client of ${this.who} cannot answer ${method}: ${this.closedWhy}`);
  }
}

function safeObject(bytes: Uint8Array): JsonObject | undefined {
  try {
    return decodeObject(bytes, 'error data');
  } catch {
    return undefined;
  }
}

function cancelledError(method: string): ClientRequestError {
  return new ClientRequestError(JSONRPC_INTERNAL_ERROR, `${method} was cancelled by the server`);
}

export interface ClientLink {
  /** Puts a request to the session's MCP client, through its gateway. */
  readonly channel: ClientChannel;
  onResponse(r: SessionResponse): void;
  onNotification(n: SessionNotification): void;
  close(): void;
}

/** Registers a Session's gateway with the core's client-request router and routes its replies. */
export function linkClient(
  api: ControlApi,
  session: CallerSession,
  send: (msg: SessionServerMessage) => void,
  clientName?: string,
): ClientLink {
  const channel = new GatewayChannel(send, `caller "${session.caller}"`);
  const detach = api.clientRequests?.attach(session, channel, clientName) ?? (() => {});
  return {
    channel,
    onResponse: (r) => channel.onResponse(r),
    onNotification: (n) => {
      let params: JsonObject;
      try {
        params = n.paramsJson?.length ? decodeObject(n.paramsJson, `${n.method} params`) : {};
      } catch {
        return; // a malformed notification has no one to answer
      }
      if (n.method === CLIENT_CAPABILITIES_NOTIFICATION) {
        const caps = params.capabilities;
        const name = params.clientName;
        if (caps && typeof caps === 'object' && !Array.isArray(caps))
          api.clientRequests?.setCapabilities(session.id, caps, typeof name === 'string' ? name : undefined);
      } else if (n.method === ROOTS_LIST_CHANGED) {
        api.clientRequests?.rootsChanged(session.id);
      }
    },
    close: () => {
      channel.close('its gateway session ended');
      detach();
    },
  };
}
