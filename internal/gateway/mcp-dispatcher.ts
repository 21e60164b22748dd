import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../shared/json.js';
import { timerDelay } from '../shared/timer-limit.js';
import { JsonRpcCode } from './error-map.js';
import type { ForwardExtra, GatewayServer } from './adapter.js';
import { AdapterHost, gatewayAdapters, type GatewayOptions } from './adapter-host.js';
import { initializeResult } from './early-initialize.js';
import { errorBody } from './fast-tool-calls.js';
import { assertAdaptersServed, GATEWAY_METHODS } from './gateway-methods.js';
import { checkParams } from './stdio-params.js';

type RequestId = string | number;

/** What the SDK's Protocol waits for a client's answer by default; the core's own deadline is usually shorter. */
const CLIENT_REQUEST_TIMEOUT_MS = 60_000;

interface ClientRequest {
  resolve(result: JsonObject): void;
  reject(e: Error): void;
}

/** An error the client answered with, as the SDK's McpError words it. */
class ClientError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${message}`);
  }
}

/** What a face adds to the dispatcher: stdio answers `initialize` before the dispatcher loads. */
export interface DispatcherHooks {
  /** Sends the answer to `initialize` (default: as any answer); stdio skips one it already sent early. */
  answerInitialize?: (id: RequestId, result: JsonObject) => void;
}

/**
 * The gateway's one MCP dispatcher: every 2025-11-25 session, on stdio (stdio-gateway.ts), over
 * streamable HTTP and on each 2026-07-28 lane (mcp-gateway.ts), is served by it over its transport.
 * Requests are dispatched by method name from the one list (gateway-methods.ts) to the areas' forward
 * (through the surface adapters, adapters/); params are checked as the SDK's schemas would check them
 * (stdio-params.ts: the hot methods by hand, the rest by those schemas, loaded on first use), so the SDK's
 * Server and its protocol schemas are never loaded to serve a session. `initialize` and `ping` are
 * answered here; `tools/call` on stdio never reaches it (the fast lane, fast-tool-calls.ts, takes it).
 */
export class McpDispatcher implements GatewayServer {
  /** Called when the transport closes: the session is over. */
  onclose?: () => void;
  readonly host: AdapterHost;
  private transport?: Transport;
  private readonly inflight = new Map<RequestId, AbortController>();
  private readonly asked = new Map<RequestId, ClientRequest>();
  private nextAskId = 1;
  private closed = false;
  private clientCapabilities?: JsonObject;
  private clientInfo?: { name: string; version: string };
  private readonly initializedHandlers: (() => void)[] = [];
  private readonly clientNotificationHandlers = new Map<string, (params: JsonObject) => void>();

  constructor(
    private readonly opts: GatewayOptions,
    private readonly hooks: DispatcherHooks = {},
  ) {
    this.host = new AdapterHost(opts, gatewayAdapters(), this);
    assertAdaptersServed(this.host.adapters.keys());
  }

  /** Serves the session on `transport` (handlers set on it before are kept and run first, as the SDK's Protocol does). */
  async connect(transport: Transport): Promise<void> {
    this.transport = transport;
    const previousClose = transport.onclose;
    const previousError = transport.onerror;
    transport.onmessage = (m) => this.onMessage(m);
    transport.onclose = () => {
      previousClose?.();
      this.onclose?.();
    };
    transport.onerror = (e) => {
      previousError?.(e);
      this.opts.log(`unreadable message from the MCP client: ${e.message}`);
    };
    await transport.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.host.link.close();
    for (const ac of this.inflight.values()) ac.abort('the session closed');
    for (const r of this.asked.values()) r.reject(new ClientError(-32000, 'Connection closed'));
    this.asked.clear();
    await this.transport?.close();
  }

  // ---- GatewayServer (what the surface adapters use) ----

  getClientCapabilities(): JsonObject | undefined {
    return this.clientCapabilities;
  }

  getClientVersion(): { name: string; version: string } | undefined {
    return this.clientInfo;
  }

  onInitialized(handler: () => void): void {
    this.initializedHandlers.push(handler);
  }

  onClientNotification(method: string, handler: (params: JsonObject) => void): void {
    this.clientNotificationHandlers.set(method, handler);
  }

  request(method: string, params: JsonObject, opts: { signal: AbortSignal; timeoutMs?: number }): Promise<JsonObject> {
    const id = this.nextAskId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const timeoutMs = opts.timeoutMs === undefined ? CLIENT_REQUEST_TIMEOUT_MS : timerDelay(opts.timeoutMs);
      const stop = (reason: string, e: Error) => {
        if (!this.asked.delete(id)) return;
        this.notify('notifications/cancelled', { requestId: id, reason })
          // Ignored: a client that cannot be told has gone; the caller gets `e` all the same.
          .catch(() => {});
        reject(e);
      };
      const timer = setTimeout(
        () => stop('Request timed out', new ClientError(JsonRpcCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs })),
        timeoutMs,
      );
      const onAbort = () =>
        stop(String(opts.signal.reason), opts.signal.reason instanceof Error ? opts.signal.reason : new Error(String(opts.signal.reason)));
      const settle = () => {
        clearTimeout(timer);
        opts.signal.removeEventListener('abort', onAbort);
      };
      this.asked.set(id, {
        resolve: (r) => (settle(), resolve(r)),
        reject: (e) => (settle(), reject(e)),
      });
      if (opts.signal.aborted) return onAbort();
      opts.signal.addEventListener('abort', onAbort, { once: true });
      this.send({ jsonrpc: '2.0', id, method, params }).catch((e: Error) => this.asked.get(id)?.reject(e));
    });
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  // ---- dispatch ----

  private onMessage(message: JSONRPCMessage): void {
    const m = message as JsonObject;
    const id = m.id as RequestId | undefined;
    if (typeof m.method !== 'string') {
      if (id !== undefined) this.onResponse(id, m);
      return;
    }
    const params = isJsonObject(m.params) ? m.params : {};
    if (id === undefined) this.onNotification(m.method, params);
    else this.onRequest(id, m.method, params, m);
  }

  private onRequest(id: RequestId, method: string, params: JsonObject, message: JsonObject): void {
    if (method === 'initialize') return this.initialize(id, message);
    if (method === 'ping') return this.answer(id, { result: {} });
    if (!GATEWAY_METHODS.includes(method))
      return this.answer(id, { error: { code: JsonRpcCode.MethodNotFound, message: 'Method not found' } });
    const ac = new AbortController();
    this.inflight.set(id, ac);
    const extra: ForwardExtra = {
      signal: ac.signal,
      // Progress names its request, so the transport writes it before that request's answer (HTTP: on its stream).
      sendNotification: (n) => this.send({ jsonrpc: '2.0', method: n.method, params: n.params as JsonObject }, id),
    };
    const { _meta, ...rest } = params;
    const token = isJsonObject(_meta) ? (_meta.progressToken as string | number | undefined) : undefined;
    const next = (p: JsonObject) => this.host.forward(method, p, extra, token);
    const adapter = this.host.adapters.get(method);
    checkParams(method, message)
      .then(() => (adapter ? adapter(rest, extra, next) : next(rest)))
      .then(
        (result) => (ac.signal.aborted ? undefined : this.answer(id, { result: result as JsonValue })),
        (e: unknown) => (ac.signal.aborted ? undefined : this.answer(id, { error: errorBody(e) as JsonObject })),
      )
      .finally(() => {
        if (this.inflight.get(id) === ac) this.inflight.delete(id);
      });
  }

  /** `initialize` (a later one is answered again, as the SDK's Server does); the client's capabilities are kept. */
  private initialize(id: RequestId, message: JsonObject): void {
    const params = message.params as JsonObject | undefined;
    const result = initializeResult(message as unknown as JSONRPCMessage, { caller: this.opts.caller, version: this.opts.version });
    if (result === undefined) {
      this.answer(id, {
        error: {
          code: JsonRpcCode.InvalidParams,
          message: 'Invalid params: initialize needs protocolVersion (a string), capabilities (an object) and clientInfo {name, version}',
        },
      });
      return;
    }
    this.clientCapabilities = params?.capabilities as JsonObject;
    this.clientInfo = params?.clientInfo as { name: string; version: string };
    if (this.hooks.answerInitialize) this.hooks.answerInitialize(id, result);
    else this.answer(id, { result });
  }

  private onNotification(method: string, params: JsonObject): void {
    if (method === 'notifications/initialized') {
      for (const h of this.initializedHandlers) h();
      return;
    }
    if (method === 'notifications/cancelled') {
      const id = params.requestId as RequestId | undefined;
      if (id !== undefined) this.inflight.get(id)?.abort(params.reason);
      return;
    }
    this.clientNotificationHandlers.get(method)?.(params);
  }

  private onResponse(id: RequestId, m: JsonObject): void {
    const asked = this.asked.get(id);
    if (!asked) return;
    this.asked.delete(id);
    if (isJsonObject(m.error)) {
      const { code, message, data } = m.error;
      asked.reject(new ClientError(typeof code === 'number' ? code : JsonRpcCode.InternalError, String(message ?? ''), data));
    } else if (isJsonObject(m.result)) asked.resolve(m.result);
    else asked.reject(new ClientError(JsonRpcCode.InternalError, 'the MCP client answered with a result that is not an object'));
  }

  private answer(id: RequestId, outcome: { result: JsonValue } | { error: JsonObject }): void {
    this.send({ jsonrpc: '2.0', id, ...outcome })
      // Ignored: an answer that cannot be written goes to a client that has gone (the transport's close ends the session).
      .catch(() => {});
  }

  private send(message: JsonObject, relatedRequestId?: RequestId): Promise<void> {
    if (!this.transport) return Promise.reject(new Error('Not connected'));
    return this.transport.send(message as unknown as JSONRPCMessage, relatedRequestId === undefined ? undefined : { relatedRequestId });
  }
}
