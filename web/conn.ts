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
import { dropLogin, keepLogin, takeLogin } from './login.js';

export type ConnState = 'connecting' | 'online' | 'stopping' | 'stopped' | 'reconnecting' | 'locked-out' | 'logged-out';

/** Our own retries (after a server-side disconnect or a failed renewal): as socket.io's own, up to 2 s. */
const RETRY: Backoff = { baseMs: 250, maxMs: 2000, jitter: 0.5 };

/**
 * The page's one connection to the core (namespace /app), speaking the protocol of
 * contract/dashboard/dashboard-events.ts. It survives core restarts: after a "core-stopping" notice or
 * any drop it reconnects, and when the next core does not know its login yet it renews it (POST /app/renew,
 * once per login and core) before trying again. The login's value goes along explicitly (./login.ts).
 */
class Connection {
  readonly socket: Socket;
  state: ConnState = 'connecting';
  private readonly stateListeners = new Set<() => void>();
  private readonly reconnectHooks = new Set<() => void>();
  private attempt = 0;
  private login = takeLogin();

  constructor() {
    this.socket = io('/app', { transports: ['websocket'], reconnectionDelayMax: RETRY.maxMs, query: { session: this.login ?? '' } });
    this.socket.on('connect', () => {
      this.attempt = 0;
      this.set('online');
      for (const h of this.reconnectHooks) h();
    });
    this.on('core-stopping', () => this.set('stopping'));
    this.socket.on('disconnect', (reason) => {
      if (this.state === 'logged-out') return;
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
    if (!renewable || !this.login) return this.lockOut();
    fetch('/app/renew', { method: 'POST', headers: { 'x-mcpd-session': this.login }, credentials: 'omit' }).then(
      async (r) => {
        if (!r.ok) return this.lockOut();
        if (r.status === 200) this.use(((await r.json()) as { session: string }).session);
        this.socket.connect();
      },
      () => this.later(() => this.socket.connect()),
    );
  }

  /** The login's new value (a renewal): kept, and presented by every later handshake. */
  private use(login: string): void {
    this.login = login;
    keepLogin(login);
    this.socket.io.opts.query = { session: login };
  }

  /** No login will do: stop socket.io's retries (each would be refused) until the page is opened anew. */
  private lockOut(): void {
    this.socket.disconnect();
    this.set(this.state === 'logged-out' ? 'logged-out' : 'locked-out');
  }

  /** Ends this page's login at the core (its sockets close) and forgets the value. */
  logOut(): void {
    const login = this.login;
    this.login = null;
    dropLogin();
    this.set('logged-out');
    this.socket.disconnect();
    if (!login) return;
    // Not awaited: the page is logged out already. A failed request (core down) is dropped on purpose: the
    // value is forgotten here, and the login ends with that core or by its expiry anyway.
    void fetch('/app/logout', { method: 'POST', headers: { 'x-mcpd-session': login }, credentials: 'omit' }).catch(() => undefined);
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
