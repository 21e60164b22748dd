import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ServerCapabilities, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../../domain/json.js';
import type { SessionClient } from '../rpc/session-client.js';

export interface ForwardExtra {
  signal: AbortSignal;
  sendNotification: (n: ServerNotification) => Promise<void>;
}

/** What an area of the gateway (tools, resources, prompts, logs, context) can use. */
export interface GatewayContext {
  readonly server: Server;
  readonly caller: string;
  /** Sends a request over the core Session (waiting for a core if needed); errors come back as JSON-RPC errors. */
  forward(method: string, params: JsonObject, extra: ForwardExtra, progressToken?: string | number): Promise<JsonValue>;
  /** Handles a notification the core sends on the Session. */
  onCoreNotification(method: string, handler: (params: JsonObject) => void): void;
  /** Called after every (re)connection to a core; `reconnect` is false the first time. */
  onConnected(handler: (session: SessionClient, reconnect: boolean) => void): void;
  log(msg: string): void;
}

/** One slice of the MCP surface: the capabilities it adds and the handlers it registers. */
export interface GatewayArea {
  capabilities: ServerCapabilities;
  register(ctx: GatewayContext): void;
}

/** Reads the `mcpd/etag` the core puts in `_meta` of list results and change notifications. */
export function etagOf(o: JsonObject): string | undefined {
  const meta = o._meta;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const e = meta['mcpd/etag'];
    return typeof e === 'string' ? e : undefined;
  }
  return undefined;
}
