import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import type { StdioServerLineTransport } from '../stdio-server-transport.js';
import type { RequestId } from './channel.js';
import type { SessionGateway } from '../session-gateway.js';
import { LanePool } from './lanes.js';
import { StatelessEndpoint } from './stateless-endpoint.js';
import { StdioReply } from './stdio-reply.js';

/**
 * Requests one stdio client has served at once at most (each holds a lane: a gateway with its own core
 * Session); more wait for a lane. An MRTR request holds its lane until its retry, a listen stream for its life.
 */
const STDIO_LANES = 16;
/** Listen streams one stdio client holds at most: fewer than its lanes, so its other requests are always served. */
const STDIO_LISTENS = 8;
/** How long a stdio request waits for a lane before it is answered with an error. */
const STDIO_LANE_WAIT_MS = 30_000;

export interface StdioStatelessOptions {
  /** Builds the gateway behind a lane. */
  newSession: () => SessionGateway;
  /** The caller requests are served as (their requestState is bound to it). */
  caller: string;
  version: string;
  log: (msg: string) => void;
}

/**
 * `mcpdmcp CALLER` on stdio when the client opened with a 2026-07-28 request (early-initialize.ts decides
 * on the first message): every request is served statelessly by the same endpoint as `--http`, its
 * answer and notifications written as lines on stdout. The server never writes requests (server→client
 * requests are InputRequiredResults); `notifications/cancelled` ends a request or a listen stream.
 */
export class StdioStatelessGateway {
  /** Called when stdin closes: the connection is over. */
  onclose?: () => void;
  private readonly endpoint: StatelessEndpoint;
  /** Requests not answered yet, and listen streams, by id: what `notifications/cancelled` can end. */
  private readonly open = new Map<RequestId, StdioReply>();
  private closed = false;

  constructor(
    private readonly o: StdioStatelessOptions,
    private readonly transport: StdioServerLineTransport,
  ) {
    const lanes = new LanePool({
      newSession: o.newSession,
      max: STDIO_LANES,
      waitMs: STDIO_LANE_WAIT_MS,
      listens: { total: STDIO_LISTENS, perClient: STDIO_LISTENS },
      version: o.version,
      log: o.log,
    });
    this.endpoint = new StatelessEndpoint({ lanes, caller: o.caller, version: o.version, log: o.log });
  }

  /** Takes over the transport, with the messages it held while this loaded (the first one among them). */
  async start(): Promise<void> {
    this.transport.intercept = undefined;
    this.transport.onmessage = (m) => this.onMessage(m);
    this.transport.onclose = () => this.onclose?.();
    this.transport.onerror = (e) => this.o.log(`unreadable message from the MCP client: ${e.message}`);
    await this.transport.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const reply of this.open.values()) reply.abandon();
    this.open.clear();
    await this.endpoint.close();
    await this.transport.close();
  }

  private onMessage(message: JSONRPCMessage): void {
    const m = message as JsonObject;
    const params = isJsonObject(m.params) ? m.params : {};
    // A response: this server asks the client nothing on stdio, so there is nothing to match it to.
    if (typeof m.method !== 'string') return;
    if (m.id === undefined) return this.onNotification(m.method, params);
    if (typeof m.id !== 'string' && typeof m.id !== 'number') {
      this.write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: id must be a string or a number' } });
      return;
    }
    const id = m.id;
    const reply = new StdioReply(id, (msg, related) => this.write(msg, related));
    this.open.set(id, reply);
    // serve() answers every failure on the reply itself; the entry goes once answered (a listen stays).
    void this.endpoint.serve({ id, method: m.method, params }, reply).finally(() => {
      if (reply.answered && this.open.get(id) === reply) this.open.delete(id);
    });
  }

  private onNotification(method: string, params: JsonObject): void {
    if (method !== 'notifications/cancelled') return;
    const id = params.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const reply = this.open.get(id);
    this.open.delete(id);
    reply?.abandon();
  }

  private write(message: JsonObject, related?: RequestId): void {
    this.transport
      .send(message as unknown as JSONRPCMessage, related === undefined ? undefined : { relatedRequestId: related })
      // Ignored: a line that cannot be written goes to a client that has gone (stdin's end closes the gateway).
      .catch(() => {});
  }
}
