import type { JsonObject } from '../../shared/json.js';
import type { SessionGateway } from '../session-gateway.js';
import { LoopTransport } from './loop-transport.js';
import { ListenSlots, type ListenCaps } from './listen-slots.js';
import { EraError } from './protocol.js';

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
  /** How long a request waits for a lane before it is refused (503). */
  waitMs: number;
  /** `subscriptions/listen` streams at most, in all (below `max`) and per client. */
  listens: ListenCaps;
  /** What a refused client's user can change (named in the 503), e.g. the flag that sets `max`. */
  raise?: string;
  version: string;
  log: (msg: string) => void;
}

/** A request waiting for a lane. */
interface Waiter {
  give(lane: Lane): void;
  fail(e: Error): void;
}

/** Why a waiter left the queue without a lane: its client gave the request up. */
export class LeftWhileWaiting extends Error {}

/**
 * The gateways behind 2026-07-28 requests. A request holds a lane for its whole life (an MRTR request
 * until its last retry), so whatever the core sends on that lane's Session belongs to it; idle lanes
 * are kept for the next request, so a call costs no new core Session.
 */
export class LanePool {
  private readonly idle: Lane[] = [];
  private readonly queue: Waiter[] = [];
  private readonly listens: ListenSlots;
  /** The client each listen stream's lane holds a slot for. */
  private readonly listenOf = new Map<Lane, string>();
  private count = 0;
  private closed = false;
  /** The initialize result of the first lane: what server/discover reports. */
  private serverInit?: Promise<JsonObject>;

  constructor(private readonly o: LanePoolOptions) {
    if (o.listens.total >= o.max) throw new Error(`listen streams (${o.listens.total}) must be fewer than lanes (${o.max})`);
    this.listens = new ListenSlots(o.listens);
  }

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

  /**
   * A lane for one request: an idle one, a new one below the cap, else the next one that comes free —
   * waiting at most `waitMs` (then a 503 EraError), and not at all once `signal` says the client left.
   */
  async acquire(signal?: AbortSignal): Promise<Lane> {
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
    return this.wait(signal);
  }

  /** A lane for a `subscriptions/listen` stream of `client`, within the listen caps (refused with an EraError beyond them). */
  async acquireListen(client: string, signal?: AbortSignal): Promise<Lane> {
    this.listens.take(client);
    try {
      const lane = await this.acquire(signal);
      this.listenOf.set(lane, client);
      return lane;
    } catch (e) {
      this.listens.free(client);
      throw e;
    }
  }

  release(lane: Lane): void {
    lane.transport.sink = undefined;
    this.freeListen(lane);
    const next = this.queue.shift();
    if (next) next.give(lane);
    // dispose() swallows a failed close itself (nobody to tell at shutdown), so it never rejects.
    else if (this.closed) void this.dispose(lane);
    else this.idle.push(lane);
  }

  /** A lane whose request left it in an unknown state (cancelled mid-call) is closed, not reused. */
  discard(lane: Lane): void {
    this.count--;
    this.freeListen(lane);
    // dispose() never rejects (see there); the lane is gone from the pool either way.
    void this.dispose(lane);
    const next = this.queue.shift();
    if (!next) return;
    // A waiter gets a fresh lane; if opening fails it waits on (its own deadline still runs).
    this.count++;
    this.open().then(
      (l) => next.give(l),
      () => {
        this.count--;
        this.queue.unshift(next);
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.queue.splice(0)) w.fail(new Error('the gateway is shutting down'));
    await Promise.all(this.idle.splice(0).map((l) => this.dispose(l)));
  }

  private freeListen(lane: Lane): void {
    const client = this.listenOf.get(lane);
    if (client === undefined) return;
    this.listenOf.delete(lane);
    this.listens.free(client);
  }

  /** Queues for the next lane that comes free, bounded by `waitMs` and by the client staying. */
  private wait(signal: AbortSignal | undefined): Promise<Lane> {
    return new Promise<Lane>((resolve, reject) => {
      const leave = (e: Error) => {
        const i = this.queue.indexOf(waiter);
        if (i < 0) return;
        this.queue.splice(i, 1);
        done();
        reject(e);
      };
      const onAbort = () => {
        this.o.log("a 2026-07-28 request's client left while waiting for a lane; dropped, it will not run");
        leave(new LeftWhileWaiting('the client left while the request waited for a lane'));
      };
      const timer = setTimeout(
        () =>
          leave(
            new EraError(
              503,
              -32000,
              `Service unavailable: all ${this.o.max} lanes of this gateway were busy for ${this.o.waitMs} ms; retry later` +
                (this.o.raise ? `, or raise ${this.o.raise}` : ''),
            ),
          ),
        this.o.waitMs,
      );
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        give: (lane) => (done(), resolve(lane)),
        fail: (e) => (done(), reject(e)),
      };
      this.queue.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
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
