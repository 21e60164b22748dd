import type { JsonObject } from '../../shared/json.js';
import type { SessionGateway } from '../session-gateway.js';
import { LoopTransport } from './loop-transport.js';

/** The capabilities a lane's gateway declares: each request's own are checked by the 2026 layer. */
const LANE_CLIENT_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

/** One gateway (with its own core Session) that serves one 2026-07-28 request at a time. */
export interface Lane {
  readonly transport: LoopTransport;
  readonly gateway: SessionGateway;
  /** The log level the lane's core Session sends at (the gateway's default until a request sets one). */
  level?: string;
}

export interface LanePoolOptions {
  newSession: () => SessionGateway;
  /** Lanes at most; a request beyond them waits for one to come free. */
  max: number;
  version: string;
}

/**
 * The gateways behind 2026-07-28 requests. A request holds a lane for its whole life (an MRTR request
 * until its last retry), so whatever the core sends on that lane's Session belongs to it; idle lanes
 * are kept for the next request, so a call costs no new core Session.
 */
export class LanePool {
  private readonly idle: Lane[] = [];
  private readonly queue: ((lane: Lane) => void)[] = [];
  private count = 0;
  private closed = false;
  /** The initialize result of the first lane: what server/discover reports. */
  private serverInit?: Promise<JsonObject>;

  constructor(private readonly o: LanePoolOptions) {}

  /** Capabilities, server info and instructions of the gateway (what a session's initialize returns). */
  describe(): Promise<JsonObject> {
    if (!this.serverInit) {
      this.serverInit = this.acquire().then((lane) => {
        const init = (lane as LaneWithInit).init;
        this.release(lane);
        return init;
      });
      // A failed first look is not kept: the next discover tries again.
      this.serverInit.catch(() => (this.serverInit = undefined));
    }
    return this.serverInit;
  }

  async acquire(): Promise<Lane> {
    if (this.closed) throw new Error('the gateway is shutting down');
    const lane = this.idle.pop();
    if (lane) return lane;
    if (this.count < this.o.max) {
      this.count++;
      try {
        return await this.open();
      } catch (e) {
        this.count--;
        throw e;
      }
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  release(lane: Lane): void {
    lane.transport.sink = undefined;
    const next = this.queue.shift();
    if (next) next(lane);
    // dispose() swallows a failed close itself (nobody to tell at shutdown), so it never rejects.
    else if (this.closed) void this.dispose(lane);
    else this.idle.push(lane);
  }

  /** A lane whose request left it in an unknown state (cancelled mid-call) is closed, not reused. */
  discard(lane: Lane): void {
    this.count--;
    // dispose() never rejects (see there); the lane is gone from the pool either way.
    void this.dispose(lane);
    const next = this.queue.shift();
    // A waiter gets a fresh lane; if opening fails it is retried by the waiter's own request.
    if (next) void this.acquire().then(next, () => this.queue.unshift(next));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((l) => this.dispose(l)));
  }

  private async dispose(lane: Lane): Promise<void> {
    // Ignored: closing a lane at shutdown or after a cancel; there is no one to tell.
    await lane.gateway.close().catch(() => {});
  }

  private async open(): Promise<Lane> {
    const transport = new LoopTransport();
    const gateway = this.o.newSession();
    await gateway.connect(transport);
    const { response } = transport.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: LANE_CLIENT_CAPABILITIES,
      clientInfo: { name: 'mcpd-2026-07-28', version: this.o.version },
    });
    const init = await response;
    if (init.error) throw new Error(`the gateway lane did not initialize: ${init.error.message}`);
    transport.notify('notifications/initialized', {});
    const lane: LaneWithInit = { transport, gateway, init: init.result ?? {} };
    return lane;
  }
}

interface LaneWithInit extends Lane {
  init: JsonObject;
}
