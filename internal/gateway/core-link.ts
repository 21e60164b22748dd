import { backoffDelayMs } from '../shared/backoff.js';
import { McpdError } from '../shared/errors.js';
import { assertSocketOwner } from '../contract/session/socket-path.js';
import { SessionClient } from '../contract/session/session-client.js';
import type { StartedCore } from '../launch/autostart.js';
import type { WriteBatcher } from '../shared/jsonrpc/turn-writes.js';
import { cappedTimeout } from '../shared/timer-limit.js';
import type { SessionHello } from '../contract/gen/mcpd/control/v1/session.js';

export interface CoreLinkOptions {
  socket: string;
  caller: string;
  clientName?: string;
  /** Starts a core when none answers (undefined when one was started moments ago); absent = never (--no-autostart). */
  startCore?: () => StartedCore | undefined;
  log: (msg: string) => void;
  /**
   * Opens a Session with this hello; default: a MCPD-SESSION/1 connection of its own. The HTTP gateway
   * passes its SharedCoreConnection's, so all its sessions share one connection.
   */
  open?: (hello: SessionHello) => Promise<SessionClient>;
  /** The process's write batcher (turn-writes.ts) for a Session of its own, shared with stdout. */
  batcher?: WriteBatcher;
  /** Called after every successful (re)connection. */
  onConnected: (session: SessionClient, reconnect: boolean) => void;
}

/** Gateways of every client reconnect when the core restarts: jitter keeps them from arriving in step. */
const RECONNECT = { baseMs: 50, maxMs: 2000, jitter: 0.2 };
/** Do not start another core while the last one may still be coming up. */
const RESTART_COOLDOWN_MS = 5000;
/**
 * While a core this gateway started comes up, its socket is tried this often instead of by the backoff: the
 * client waits for the first listing, and the backoff's doubling (50, 100, 200, 400 ms …) found a core that
 * was up in 300 ms only at 750 ms. A failed connect to a missing unix socket costs next to nothing.
 */
const COMING_UP_POLL_MS = 10;
/** How long a started core is polled that way before the backoff takes over again. */
const COMING_UP_MS = 30_000;
/** How long a request waits when no core was ever reachable and none can be started (a core starting right now still gets found). */
const NEVER_REACHED_WAIT_MS = 1000;

/**
 * Keeps one Session to the core alive for the gateway's whole life: connects lazily, starts the core
 * when allowed, and reconnects with backoff after the core goes away.
 */
export class CoreLink {
  private current?: SessionClient;
  private connecting?: Promise<SessionClient>;
  private connectedOnce = false;
  private lastStartAt = 0;
  /** Until then a core this gateway started may be coming up: connect attempts poll (COMING_UP_POLL_MS). */
  private comingUpUntil = 0;
  private stopped = false;
  private lastSessionId = '';
  /** Ends the reconnect loop's current backoff sleep early. */
  private wake?: () => void;
  /**
   * A client needs the core (a new session, a request): only then is a missing core started. Reconnecting
   * after the core went away never starts one by itself, so an operator's `mcpdctl stop` stays a stop
   * until a client actually asks for something.
   */
  private demand = false;
  private toldIdle = false;
  /** The last core this gateway started exited with this (its own first error and its log), until one answers. */
  private startFailure?: string;
  /** Requests waiting for a core: told at once when the core started for them fails. */
  private readonly waiting = new Set<(e: McpdError) => void>();
  /** A connection attempt is under way (the socket is being opened or the core's welcome awaited). */
  private attempting = false;
  /** Requests past the never-reached wait, held only by the attempt under way: told when it fails. */
  private readonly attemptWaiters = new Set<() => void>();

  constructor(private readonly opts: CoreLinkOptions) {}

  /**
   * The live session, waiting up to `waitMs` for one. Waiting is right while a core this gateway was
   * connected to restarts, or while the core it started comes up. A gateway that cannot start a core
   * and has never reached one has nothing to wait for: it fails within NEVER_REACHED_WAIT_MS.
   */
  async session(waitMs: number): Promise<SessionClient> {
    if (this.current && !this.current.isClosed) return this.current;
    this.demand = true;
    const connecting = this.connect();
    // A request is worth an attempt now: the backoff may be sleeping up to its cap (2 s), longer than a
    // request with no core ever reached may wait, and a core that just came up should be found at once.
    this.wake?.();
    const neverReached = !this.opts.startCore && !this.connectedOnce;
    const wait = neverReached ? Math.min(waitMs, NEVER_REACHED_WAIT_MS) : waitMs;
    let timer: NodeJS.Timeout | undefined;
    let failFast: ((e: McpdError) => void) | undefined;
    let giveUp: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      giveUp = () => reject(this.unreachable(wait, neverReached));
      const give = giveUp;
      timer = cappedTimeout(() => {
        // A connection under way is a core that exists but is slow to answer (a loaded machine): it gets the
        // request's whole wait, and the request fails at once if that attempt fails.
        if (!neverReached || !this.attempting) return give();
        this.attemptWaiters.add(give);
        timer = cappedTimeout(give, waitMs - wait);
      }, wait);
      // A core that exited instead of coming up will not come up in the time left: say why now.
      failFast = reject;
      this.waiting.add(reject);
    });
    try {
      return await Promise.race([connecting, timeout]);
    } finally {
      clearTimeout(timer);
      if (failFast) this.waiting.delete(failFast);
      if (giveUp) this.attemptWaiters.delete(giveUp);
    }
  }

  /** The session if one is open now (no waiting). */
  live(): SessionClient | undefined {
    return this.current && !this.current.isClosed ? this.current : undefined;
  }

  private unreachable(waitedMs: number, neverReached: boolean): McpdError {
    const where = `no mcpd core reachable at ${this.opts.socket}`;
    if (neverReached)
      return new McpdError(
        'UNAVAILABLE',
        `${where}; start one with \`mcpd --config DIR --socket ${this.opts.socket}\` (this gateway runs with --no-autostart)`,
      );
    if (this.startFailure) return new McpdError('UNAVAILABLE', `${where}: ${this.startFailure}`);
    if (this.opts.startCore) return new McpdError('UNAVAILABLE', `${where} after ${waitedMs} ms; the core did not come up — see its log`);
    return new McpdError(
      'UNAVAILABLE',
      `${where} after ${waitedMs} ms; the core went away — start it again with \`mcpd --config DIR\` (autostart is off)`,
    );
  }

  /** Starts connecting in the background for a new session (gateway start-up): that is demand. */
  warm(): void {
    this.demand = true;
    this.reconnect();
  }

  /** Connects in the background, starting no core unless a client asked for one meanwhile. */
  private reconnect(): void {
    // Ignored: a background attempt only: the first request connects again and reports the failure to its caller.
    this.connect().catch(() => {});
  }

  close(): void {
    this.stopped = true;
    this.current?.close();
  }

  private connect(): Promise<SessionClient> {
    if (!this.connecting) {
      this.connecting = this.connectLoop().finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  private async connectLoop(): Promise<SessionClient> {
    let attempt = 0;
    for (;;) {
      if (this.stopped) throw new McpdError('UNAVAILABLE', 'gateway is shutting down');
      // Not retried: a socket another user owns stays refused until the user fixes it.
      try {
        assertSocketOwner(this.opts.socket);
      } catch (e) {
        throw new McpdError('FAILED_PRECONDITION', (e as Error).message);
      }
      try {
        const hello = {
          caller: this.opts.caller,
          pid: process.pid,
          clientName: this.opts.clientName ?? '',
          previousSessionId: this.lastSessionId,
        };
        this.attempting = true;
        const session = await (
          this.opts.open ? this.opts.open(hello) : SessionClient.connect(this.opts.socket, hello, undefined, this.opts.batcher)
        ).finally(() => {
          this.attempting = false;
        });
        return this.adopt(session);
      } catch (e) {
        for (const giveUp of this.attemptWaiters) giveUp();
        this.attemptWaiters.clear();
        if (this.demand) this.maybeStartCore((e as Error).message);
        else this.waitIdle((e as Error).message);
        await this.backoffSleep(Date.now() < this.comingUpUntil ? COMING_UP_POLL_MS : backoffDelayMs(++attempt, RECONNECT));
      }
    }
  }

  private backoffSleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = cappedTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }

  private adopt(session: SessionClient): SessionClient {
    // Closed while connecting (an HTTP session evicted or expired): the new link must not outlive it.
    if (this.stopped) {
      session.close();
      throw new McpdError('UNAVAILABLE', 'gateway is shutting down');
    }
    const reconnect = this.connectedOnce;
    this.connectedOnce = true;
    this.startFailure = undefined;
    this.comingUpUntil = 0;
    this.demand = false;
    this.toldIdle = false;
    this.current = session;
    this.lastSessionId = session.welcome.sessionId;
    this.opts.log(
      `${reconnect ? 'reconnected' : 'connected'} to core ${session.welcome.coreId} as ${this.opts.caller} (profile ${session.welcome.profile})`,
    );
    session.onClose((err) => {
      if (this.stopped) return;
      this.opts.log(`core session lost: ${err.message}; reconnecting (a core is started only when a client needs it)`);
      this.reconnect();
    });
    this.opts.onConnected(session, reconnect);
    return session;
  }

  /** Said once per loss: the core stays stopped until a client needs it. */
  private waitIdle(why: string): void {
    if (this.toldIdle || !this.opts.startCore) return;
    this.toldIdle = true;
    this.opts.log(`no core answered (${why}); not starting one until a client needs it`);
  }

  private maybeStartCore(why: string): void {
    if (!this.opts.startCore) return;
    const now = Date.now();
    if (now - this.lastStartAt < RESTART_COOLDOWN_MS) return;
    this.lastStartAt = now;
    this.opts.log(`no core answered (${why}); starting one`);
    const started = this.opts.startCore();
    if (started) this.comingUpUntil = now + COMING_UP_MS;
    // Fire-and-forget: `failed` never rejects; it settles only when the started core exits failing.
    void started?.failed.then((first) => {
      this.comingUpUntil = 0;
      this.startFailure = `the core it started exited: ${first} — its log: ${started.logFile}`;
      this.opts.log(this.startFailure);
      const err = new McpdError('UNAVAILABLE', `no mcpd core reachable at ${this.opts.socket}: ${this.startFailure}`);
      for (const reject of this.waiting) reject(err);
    });
  }
}
