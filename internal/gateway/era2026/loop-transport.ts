import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';

type RequestId = string | number;

/** A JSON-RPC response the gateway's server sent: a result or an error. */
export interface LoopResponse {
  result?: JsonObject;
  error?: { code: number; message: string; data?: JsonValue };
}

/** Where a lane's server-side traffic goes while one 2026-07-28 request holds the lane. */
export interface LoopSink {
  /** A notification of that request (progress, log messages). */
  notify(method: string, params: JsonObject): void;
  /** A server→client request (sampling, elicitation, roots) made while the request runs. */
  ask(id: RequestId, method: string, params: JsonObject): void;
}

/**
 * The gateway's MCP server talks to this transport instead of a socket: the 2026-07-28 layer puts one
 * request at a time into it and receives the answer, the request's notifications and the server→client
 * requests the core sends while it runs. The gateway's adapters and core link stay as they are.
 */
export class LoopTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The request holding the lane (undefined between requests). */
  sink?: LoopSink;
  /** Notifications outside any request (list_changed, resources/updated), for a listen stream. */
  onUnrelated?: (method: string, params: JsonObject) => void;
  private readonly waiting = new Map<RequestId, (r: LoopResponse) => void>();
  private nextId = 1;
  private closed = false;

  async start(): Promise<void> {}

  /** Sends a request to the server; resolves with its response. */
  request(method: string, params: JsonObject): { id: RequestId; response: Promise<LoopResponse> } {
    const id = `m${this.nextId++}`;
    const response = new Promise<LoopResponse>((resolve) => this.waiting.set(id, resolve));
    this.deliver({ jsonrpc: '2.0', id, method, params });
    return { id, response };
  }

  notify(method: string, params: JsonObject): void {
    this.deliver({ jsonrpc: '2.0', method, params });
  }

  /** Answers a server→client request the sink was asked. */
  answer(id: RequestId, answer: LoopResponse): void {
    if (answer.error) this.deliver({ jsonrpc: '2.0', id, error: answer.error });
    else this.deliver({ jsonrpc: '2.0', id, result: answer.result ?? {} });
  }

  private deliver(message: JSONRPCMessage): void {
    if (this.closed) throw new Error('the gateway lane is closed');
    this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: RequestId; method?: string; params?: JsonObject; result?: JsonObject; error?: LoopResponse['error'] };
    if (m.method === undefined) {
      const resolve = m.id === undefined ? undefined : this.waiting.get(m.id);
      if (!resolve || m.id === undefined) return;
      this.waiting.delete(m.id);
      resolve(m.error ? { error: m.error } : { result: m.result ?? {} });
      return;
    }
    if (m.id !== undefined) {
      if (this.sink) this.sink.ask(m.id, m.method, m.params ?? {});
      // No request holds the lane: nobody can answer, so the server hears so at once.
      else this.answer(m.id, { error: { code: -32603, message: `no 2026-07-28 request is waiting to answer ${m.method}` } });
      return;
    }
    if (m.method === 'notifications/progress' || m.method === 'notifications/message') this.sink?.notify(m.method, m.params ?? {});
    else this.onUnrelated?.(m.method, m.params ?? {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const resolve of this.waiting.values()) resolve({ error: { code: -32603, message: 'the gateway lane closed' } });
    this.waiting.clear();
    this.onclose?.();
  }
}
