import type { CallerSession } from '../model/caller.js';
import type { JsonObject } from '../../shared/json.js';

/** Session notification a gateway sends with what its MCP client declared in `initialize`. */
export const CLIENT_CAPABILITIES_NOTIFICATION = 'notifications/mcpd/client_capabilities';
export const ROOTS_LIST_CHANGED = 'notifications/roots/list_changed';

/** JSON-RPC codes used when a server→client request cannot be answered. */
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INTERNAL_ERROR = -32603;
export const JSONRPC_REQUEST_TIMEOUT = -32001;

/**
 * The error a downstream server receives for its server→client request. `code`, `message` and `data`
 * are what the MCP SDK puts into the JSON-RPC error response.
 */
export class ClientRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: JsonObject,
  ) {
    super(message);
    this.name = 'ClientRequestError';
  }
}

/** Server→client request methods mcpd forwards, and the client capability each needs. */
const CLIENT_CAPABILITY_OF: ReadonlyMap<string, string> = new Map([
  ['sampling/createMessage', 'sampling'],
  ['elicitation/create', 'elicitation'],
  ['roots/list', 'roots'],
]);

/** The server→client methods mcpd forwards, for messages. */
export const FORWARDED_CLIENT_METHODS: readonly string[] = [...CLIENT_CAPABILITY_OF.keys()];

/** The client capability a server→client method needs; undefined for any other name (inherited ones included). */
export function clientCapabilityOf(method: string): string | undefined {
  return CLIENT_CAPABILITY_OF.get(method);
}

/** A gateway's end of the Session, able to put a request to its MCP client. */
export interface ClientChannel {
  request(method: string, params: JsonObject, opts: { signal?: AbortSignal; timeoutMs: number }): Promise<JsonObject>;
}

/** Where the Session stream tells the core about the gateways that can answer server→client requests. */
export interface ClientRequestsApi {
  /** The session's gateway can take requests from now on; the returned function detaches it. */
  attach(session: CallerSession, channel: ClientChannel, clientName?: string): () => void;
  /** What the session's MCP client declared in `initialize` (sent again after every reconnect). */
  setCapabilities(sessionId: string, capabilities: JsonObject, clientName?: string): void;
  /** The session's client said its roots changed: the servers of its profile are told. */
  rootsChanged(sessionId: string): void;
}
