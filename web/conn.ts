import { io, type Socket } from 'socket.io-client';

export type Reply<T> = { ok: true; value: T } | { ok: false; error: string };
export type ConnState = 'connecting' | 'online' | 'stopping' | 'reconnecting' | 'locked-out';

type Listener = (v: unknown) => void;

/**
 * The page's one connection to the core (namespace /app). It survives core restarts: after a
 * "core-stopping" notice or any drop it reconnects, and when the next core has a new token it trades
 * the old cookie for a new one (POST /app/renew) before trying again.
 */
class Connection {
  readonly socket: Socket;
  state: ConnState = 'connecting';
  coreId = '';
  private readonly stateListeners = new Set<() => void>();
  private readonly reconnectHooks = new Set<() => void>();
  private retryMs = 250;

  constructor() {
    this.socket = io('/app', { transports: ['websocket'], reconnectionDelayMax: 2000 });
    this.socket.on('connect', () => {
      this.retryMs = 250;
      this.set('online');
      for (const h of this.reconnectHooks) h();
    });
    this.socket.on('core-stopping', () => this.set('stopping'));
    this.socket.on('disconnect', (reason) => {
      if (this.state !== 'stopping') this.set('reconnecting');
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
    setTimeout(fn, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 2000);
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

  on(event: string, l: Listener): () => void {
    this.socket.on(event, l);
    return () => this.socket.off(event, l);
  }

  ask<T>(event: string, args: object = {}): Promise<T> {
    return new Promise((resolve, reject) => {
      this.socket.emit(event, args, (r: Reply<T>) => (r.ok ? resolve(r.value) : reject(new Error(r.error))));
    });
  }
}

export const conn = new Connection();
