import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { JsonObject } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import type { RequestId } from './channel.js';
import { checkHeaders } from './headers.js';
import type { RequestEnvelope } from './protocol.js';
import { Reply } from './reply.js';
import { StatelessEndpoint, type Incoming, type StatelessEndpointOptions } from './stateless-endpoint.js';
import { ToolParamHeaders } from './tool-param-headers.js';

/**
 * `mcpdmcp --http` for 2026-07-28: each POST is a whole request. What only HTTP has is checked here (the
 * body is one request object, the `Mcp-*` headers match it, SEP-2243 parameter headers); the request is
 * then served by the transport-neutral endpoint, its answer plain JSON or an SSE stream (reply.ts).
 */
export class HttpStatelessEndpoint {
  private readonly endpoint: StatelessEndpoint;
  private readonly paramHeaders: ToolParamHeaders;
  /**
   * Requests not answered yet (listen streams too), per connection: what a `notifications/cancelled` can
   * reach. Clients number their requests alike (SDK clients all count from 0), so a cancel reaches only
   * its own connection's request of that id, never another client's.
   */
  private readonly open = new WeakMap<Socket, Map<RequestId, Reply>>();

  constructor(o: StatelessEndpointOptions) {
    this.endpoint = new StatelessEndpoint(o);
    this.paramHeaders = new ToolParamHeaders(o.lanes);
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!isJsonObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
      const id = isJsonObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
      return invalid(res, id, 'Invalid Request: the body must be one JSON-RPC 2.0 request object');
    }
    const params = isJsonObject(body.params) ? body.params : {};
    if (body.id === undefined || body.id === null) return this.notification(req, res, body.method, params);
    if (typeof body.id !== 'string' && typeof body.id !== 'number')
      return invalid(res, null, 'Invalid Request: id must be a string or a number');
    const msg: Incoming = { id: body.id, method: body.method, params };
    let envelope: RequestEnvelope;
    try {
      checkHeaders(req, msg.method, params);
      envelope = this.endpoint.check(msg);
      // Who asks, for the per-client listen cap: the address and the clientInfo name it gives.
      msg.client = `${req.socket.remoteAddress ?? ''} ${envelope.clientName ?? ''}`;
      if (msg.method === 'tools/call') await this.paramHeaders.check(req, params);
    } catch (e) {
      return this.endpoint.refuse(new Reply(res, msg.id, false), e);
    }
    // A request that may carry notifications (progress, log messages) is answered on an SSE stream.
    const stream = hasProgressToken(params) || envelope.logLevel !== undefined;
    const reply = new Reply(res, msg.id, stream);
    this.track(req.socket, msg.id, reply, res);
    await this.endpoint.serve(msg, reply);
  }

  private track(socket: Socket, id: RequestId, reply: Reply, res: ServerResponse): void {
    let mine = this.open.get(socket);
    if (!mine) this.open.set(socket, (mine = new Map()));
    const requests = mine;
    requests.set(id, reply);
    res.once('close', () => {
      if (requests.get(id) === reply) requests.delete(id);
    });
  }

  close(): Promise<void> {
    return this.endpoint.close();
  }

  /**
   * A notification is accepted (202). `notifications/cancelled` ends a request of this connection only
   * (one pipelined behind it); a client cancels its other requests by closing them, as the spec has it.
   */
  private notification(req: IncomingMessage, res: ServerResponse, method: string, params: JsonObject): void {
    if (method === 'notifications/cancelled') {
      const id = params.requestId;
      const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by the client';
      if (typeof id === 'string' || typeof id === 'number') this.open.get(req.socket)?.get(id)?.cancel(reason);
    }
    res.writeHead(202).end();
  }
}

function invalid(res: ServerResponse, id: string | number | null, message: string): void {
  res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message } }));
}

function hasProgressToken(params: JsonObject): boolean {
  return isJsonObject(params._meta) && params._meta.progressToken !== undefined;
}
