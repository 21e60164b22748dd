import type { ServerCapabilities, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../shared/json.js';
import type { SessionClient } from '../contract/session/session-client.js';

export interface ForwardExtra {
  signal: AbortSignal;
  sendNotification: (n: ServerNotification) => Promise<void>;
}

/**
 * Around the forward of one MCP request (params without `_meta`): `next` sends params to the core's
 * Session method of the same name. What the gateway adds on its side: the subscriptions and list etags
 * it remembers to re-sync after a core restart.
 */
export type MethodAdapter = (params: JsonObject, extra: ForwardExtra, next: (params: JsonObject) => Promise<JsonValue>) => Promise<unknown>;

/**
 * The MCP server side of one gateway session as the surface adapters use it: the gateway's one dispatcher
 * (gateway/mcp-dispatcher.ts), on stdio, over HTTP and on the 2026-07-28 lanes alike.
 */
export interface GatewayServer {
  /** What the client declared in `initialize`; undefined before it. */
  getClientCapabilities(): JsonObject | undefined;
  getClientVersion(): { name: string; version: string } | undefined;
  /** Runs (after any handler set before) once the client sent `notifications/initialized`. */
  onInitialized(handler: () => void): void;
  /** Handles a notification from the client (one handler per method). */
  onClientNotification(method: string, handler: (params: JsonObject) => void): void;
  /** Asks the client (sampling, elicitation, roots); the result object, or the client's error. */
  request(method: string, params: JsonObject, opts: { signal: AbortSignal; timeoutMs?: number }): Promise<JsonObject>;
  /** Sends a notification to the client; rejects when it cannot be written. */
  notify(method: string, params?: JsonObject): Promise<void>;
}

/** What a surface adapter of the gateway (tools, resources, prompts, logs, client requests) can use. */
export interface AdapterContext {
  readonly server: GatewayServer;
  readonly caller: string;
  /**
   * Adapts the forward of a method its area declares (internal/contract/areas/); the gateway projection
   * registers the request handler of every declared method, adapted or not.
   */
  adapt(method: string, adapter: MethodAdapter): void;
  /** Sends a request over the core Session (waiting for a core if needed); errors come back as JSON-RPC errors. */
  forward(method: string, params: JsonObject, extra: ForwardExtra, progressToken?: string | number): Promise<JsonValue>;
  /** Handles a notification the core sends on the Session. */
  onCoreNotification(method: string, handler: (params: JsonObject) => void): void;
  /** Called after every (re)connection to a core; `reconnect` is false the first time. */
  onConnected(handler: (session: SessionClient, reconnect: boolean) => void): void;
  log(msg: string): void;
}

/** One slice of the gateway's MCP surface: the capabilities it adds and the handlers it registers. */
export interface SurfaceAdapter {
  capabilities: ServerCapabilities;
  register(ctx: AdapterContext): void;
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
