import { io, type Socket } from 'socket.io-client';
import type {
  DashboardPush,
  DashboardPushes,
  DashboardRequest,
  Reply,
  RequestAnswer,
  RequestArgs,
} from '../internal/contract/dashboard/dashboard-events.js';
import { backoffDelayMs, type Backoff } from '../internal/shared/backoff.js';

export type ConnState = 'connecting' | 'online' | 'stopping' | 'stopped' | 'reconnecting' | 'locked-out';

/** Our own retries (after a server-side disconnect or a failed renewal): as socket.io's own, up to 2 s. */
const RETRY: Backoff = { baseMs: 250, maxMs: 2000, jitter: 0.5 };

/**
 * The page's one connection to the core (namespace /app), speaking the protocol of
 * contract/dashboard/dashboard-events.ts. It survives core restarts: after a "core-stopping" notice or
 * any drop it reconnects, and when the next core has a new token it trades the old cookie for a new
 * one (POST /app/renew) before trying again.
 */
class Connection {
  readonly socket: Socket;
  state: ConnState = 'connecting';
  private readonly stateListeners = new Set<() => void>();
  private readonly reconnectHooks = new Set<() => void>();
  private attempt = 0;

  constructor() {
    this.socket = io('/app', { transports: ['websocket'], reconnectionDelayMax: RETRY.maxMs });
    this.socket.on('connect', () => {
      this.attempt = 0;
      this.set('online');
      for (const h of this.reconnectHooks) h();
    });
    this.on('core-stopping', () => this.set('stopping'));
    this.socket.on('disconnect', (reason) => {
      // After a stop notice the core is gone for good: say so instead of "stopping…" forever.
      this.set(this.state === 'stopping' ? 'stopped' : 'reconnecting');
      // A server-side disconnect stops socket.io's own retries: resume them.
      if (reason === 'io server disconnect') this.later(() => this.socket.connect());
    });
    this.socket.on('connect_error', (err: Error & { data?: { renewable?: boolean } }) => {
      // The core refuses the handshake itself without a good cookie, which socket.io sees as a transport
      // error like a core that is down: /app/renew tells which (good or renewed: retry; 401: locked out).
      if (err.message !== 'unauthorized') return this.renew(true);
      this.renew(err.data?.renewable === true);
    });
  }

  private renew(renewable: boolean): void {
    if (!renewable) return this.lockOut();
    fetch('/app/renew', { method: 'POST', credentials: 'same-origin' }).then(
      (r) => (r.ok ? this.socket.connect() : this.lockOut()),
      () => this.later(() => this.socket.connect()),
    );
  }

  /** No cookie will do: stop socket.io's retries (each would be refused) until the page is opened anew. */
  private lockOut(): void {
    this.socket.disconnect();
    this.set('locked-out');
  }

  private later(fn: () => void): void {
    setTimeout(fn, backoffDelayMs(++this.attempt, RETRY));
  }

  private set(s: ConnState): void {
    this.state = s;
    for (const l of this.stateListeners) l();
  }

  onState(l: () => void): () => void {
    this.stateListeners.add(l);
    return () => this.stateListeners.delete(l);
  }

  /** Runs on every (re)connection: watches must be asked for again on a new core. */
  onConnect(h: () => void): () => void {
    this.reconnectHooks.add(h);
    if (this.socket.connected) h();
    return () => this.reconnectHooks.delete(h);
  }

  on<E extends DashboardPush>(event: E, l: (v: DashboardPushes[E]) => void): () => void {
    const listener = l as (v: unknown) => void;
    this.socket.on(event as string, listener);
    return () => this.socket.off(event as string, listener);
  }

  ask<E extends DashboardRequest>(event: E, args: RequestArgs<E>): Promise<RequestAnswer<E>> {
    return new Promise((resolve, reject) => {
      this.socket.emit(event, args, (r: Reply<RequestAnswer<E>>) => (r.ok ? resolve(r.value) : reject(new Error(r.error))));
    });
  }
}

export const conn = new Connection();
