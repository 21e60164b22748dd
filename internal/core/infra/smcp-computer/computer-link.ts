import { backoffDelayMs } from '../../../shared/backoff.js';
import type { Socket } from 'socket.io-client';
import type { SmcpLinkState } from '../../../contract/model/smcp-computer-settings.js';
import { errorPayload, SMCP_CODES } from '../../../contract/smcp/error-codes.js';
import { API_KEY_HEADER, SERVER_EVENTS, SMCP_NAMESPACE } from '../../../contract/smcp/events.js';

const JOIN_OFFICE = SERVER_EVENTS.joinOffice;
const JOIN_TIMEOUT_MS = 10_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export interface LinkOptions {
  url: string;
  apiKey: string;
  office: string;
  name: string;
  /** Every state change, with why (a refusal's message, a disconnect reason). */
  onState: (state: SmcpLinkState, detail: { sid?: string; error?: string }) => void;
  /** The connection dropped: acks of requests in flight can no longer be delivered. */
  onDrop: () => void;
}

/** A request handler's answer is the ack; a thrown error must already be turned into a payload by the caller. */
export type RequestHandler = (data: unknown) => Promise<unknown>;

/**
 * One Computer's Socket.IO connection to an SMCP Server: connects to `/smcp` with `x-api-key`,
 * joins its office on every (re)connect — the reference SDKs do not, and their computers fall out
 * of the office after a network blip — and keeps trying, with capped backoff, when the Server
 * refuses or drops it.
 */
export class ComputerLink {
  /** Set once socket.io-client is loaded (start()); until then handlers wait in `pending`. */
  private sock?: Socket;
  private readonly pending: ((s: Socket) => void)[] = [];
  private retry?: NodeJS.Timeout;
  private attempt = 0;
  private closed = false;
  private joined = false;

  constructor(private readonly o: LinkOptions) {}

  /**
   * Connects. socket.io-client is imported here, not at the top: a core that is no SMCP Computer (no
   * runtime.yaml `smcp:`) never loads it (docs/benchmarks.md, the density case).
   */
  start(): void {
    this.o.onState('connecting', {});
    // Not awaited: the link reports how it goes through onState, a failure to load or open included.
    void import('socket.io-client')
      .then(({ io }) => this.open(io))
      .catch((e: unknown) => {
        if (!this.closed) this.o.onState('disconnected', { error: `cannot open the Socket.IO connection: ${(e as Error).message}` });
      });
  }

  private open(io: typeof import('socket.io-client').io): void {
    if (this.closed) return;
    const base = this.o.url.replace(/\/+$/, '');
    const socket = (this.sock = io(`${base}${SMCP_NAMESPACE}`, {
      extraHeaders: this.o.apiKey ? { [API_KEY_HEADER]: this.o.apiKey } : {},
      // WebSocket from the start: no HTTP long-polling handshake and upgrade on every (re)connect, and
      // every request and ack is one WebSocket frame (the reference Servers accept it too).
      transports: ['websocket'],
      reconnectionDelay: RETRY_MIN_MS,
      reconnectionDelayMax: RETRY_MAX_MS,
      autoConnect: false,
    }));
    // join() turns every failure into a state change (refused, retried later) and does not reject.
    socket.on('connect', () => void this.join());
    socket.on('disconnect', (reason) => this.dropped(reason));
    socket.on('connect_error', (err) => {
      // Inactive after a connect_error = the Server's middleware refused us (a wrong key): Socket.IO
      // does not retry that itself. Active = the Server is unreachable and Socket.IO keeps trying.
      if (socket.active) return this.o.onState('disconnected', { error: err.message });
      this.o.onState('refused', { error: err.message });
      this.later(() => socket.connect());
    });
    for (const add of this.pending.splice(0)) add(socket);
    socket.connect();
  }

  /** The socket once start() has loaded socket.io-client; every event handler runs after that. */
  private get socket(): Socket {
    if (!this.sock) throw new Error('ComputerLink: the socket is used before start() opened it');
    return this.sock;
  }

  /** Adds a handler now, or when the socket exists. */
  private whenOpen(add: (s: Socket) => void): void {
    if (this.sock) add(this.sock);
    else this.pending.push(add);
  }

  /** Answers `event` requests; the ack is whatever the handler resolves to. */
  onRequest(event: string, handler: RequestHandler): void {
    this.whenOpen((s) =>
      s.on(event, (data: unknown, ack?: unknown) => {
        const reply = typeof ack === 'function' ? (ack as (v: unknown) => void) : undefined;
        // A handler that fails unexpectedly still answers (never a silent missing ack) and never takes the core down.
        handler(data).then(
          (v) => reply?.(v),
          (e: unknown) => reply?.(errorPayload(SMCP_CODES.internal, e instanceof Error ? e.message : String(e))),
        );
      }),
    );
  }

  onEvent(event: string, handler: (data: unknown) => void): void {
    this.whenOpen((s) => s.on(event, handler));
  }

  /** Fire-and-forget to the Server, only while in the office: a notice sent before the join would reach nobody. */
  emit(event: string, payload: unknown): boolean {
    if (!this.joined) return false;
    this.socket.emit(event, payload);
    return true;
  }

  /** Leaves for good (a reload removed or changed this computer, or the core stops). */
  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.joined = false;
    this.sock?.removeAllListeners();
    this.sock?.disconnect();
    this.o.onState('stopped', {});
  }

  private async join(): Promise<void> {
    this.joined = false;
    this.o.onState('connecting', { sid: this.socket.id });
    let ok = false;
    let message: string | undefined;
    try {
      // python-socketio acks the (bool, msg) tuple as two ack arguments: keep them all.
      const reply = await new Promise<unknown[]>((resolve, reject) => {
        this.socket
          .timeout(JOIN_TIMEOUT_MS)
          .emit(JOIN_OFFICE, { role: 'computer', name: this.o.name, office_id: this.o.office }, (err: Error | null, ...args: unknown[]) =>
            err ? reject(err) : resolve(args),
          );
      });
      ok = reply[0] === true;
      if (!ok) message = describe(reply);
    } catch (e) {
      message = `no answer to ${JOIN_OFFICE}: ${(e as Error).message}`;
    }
    if (this.closed || !this.socket.connected) return;
    if (ok) {
      this.attempt = 0;
      this.joined = true;
      this.o.onState('joined', { sid: this.socket.id });
      return;
    }
    this.o.onState('refused', { sid: this.socket.id, error: message });
    // Likewise: join() does not reject.
    this.later(() => void this.join());
  }

  private dropped(reason: string): void {
    const was = this.joined;
    this.joined = false;
    if (this.closed) return;
    this.o.onState('disconnected', { error: reason });
    if (was) this.o.onDrop();
    // The Server closing the session on purpose stops Socket.IO's own reconnection; ours goes on.
    if (reason === 'io server disconnect') this.later(() => this.socket.connect());
  }

  private later(fn: () => void): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    const delay = backoffDelayMs(++this.attempt, { baseMs: RETRY_MIN_MS, maxMs: RETRY_MAX_MS, jitter: 0.2 });
    this.retry = setTimeout(
      () => {
        if (!this.closed) fn();
      },
      delay * (0.5 + Math.random() / 2),
    );
    this.retry.unref();
  }
}

/** A refusal as text: the tuple's message, or an ErrorPayload's. */
function describe(reply: unknown[]): string {
  const parts = reply.map((x) => {
    if (typeof x === 'string') return x;
    if (x && typeof x === 'object' && 'message' in x) return String((x as { message: unknown }).message);
    return JSON.stringify(x);
  });
  return `join refused: ${parts.join(': ')}`;
}
