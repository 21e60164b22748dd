/**
 * Raw Socket.IO peers for SMCP tests: a small test Computer that answers `client:*` itself, and a raw client
 * that records every event it receives. Both speak the wire protocol directly (no SmcpAgent), so the tests see
 * exactly what the Server sends.
 */
import { io, type Socket } from 'socket.io-client';

export interface PeerOptions {
  apiKey?: string;
  extraHeaders?: Record<string, string>;
}

export function connectRaw(url: string, o: PeerOptions = {}): Socket {
  const headers: Record<string, string> = { ...o.extraHeaders };
  if (o.apiKey !== undefined) headers['x-api-key'] = o.apiKey;
  return io(`${url}/smcp`, { transports: ['websocket'], extraHeaders: headers, reconnection: false, forceNew: true });
}

/** Resolves on `connect`, rejects with the server's message on `connect_error`. */
export function connected(s: Socket): Promise<Socket> {
  return new Promise((resolve, reject) => {
    if (s.connected) return resolve(s);
    s.once('connect', () => resolve(s));
    s.once('connect_error', (e) => reject(e));
  });
}

/** Every event a peer received, in order, and waiters for the next matching one. */
export class Inbox {
  readonly events: { event: string; data: unknown }[] = [];
  private waiters: { match: (e: string, d: unknown) => boolean; resolve: (d: unknown) => void }[] = [];

  constructor(socket: Socket) {
    socket.onAny((event: string, data: unknown) => {
      this.events.push({ event, data });
      for (const w of [...this.waiters]) {
        if (w.match(event, data)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(data);
        }
      }
    });
  }

  of(event: string): unknown[] {
    return this.events.filter((e) => e.event === event).map((e) => e.data);
  }

  /** The first already-received or next event matching; no timer here, the test's own timeout bounds it. */
  next(event: string, where: (d: unknown) => boolean = () => true): Promise<unknown> {
    const seen = this.events.find((e) => e.event === event && where(e.data));
    if (seen) return Promise.resolve(seen.data);
    return new Promise((resolve) => this.waiters.push({ match: (e, d) => e === event && where(d), resolve }));
  }
}

/** join/leave ack with two arguments `(ok, message)`; emitWithAck would keep only the first. */
export function officeCall(s: Socket, event: string, payload: unknown): Promise<[boolean, string | null]> {
  return new Promise((resolve) => s.emit(event, payload, (ok: boolean, msg: string | null) => resolve([ok, msg])));
}

export function join(s: Socket, role: 'agent' | 'computer', name: string, office: string): Promise<[boolean, string | null]> {
  return officeCall(s, 'server:join_office', { role, name, office_id: office });
}

type Handler = (payload: Record<string, unknown>) => unknown;
/** `client:*` event → the answer a TestComputer acks with. */
export type ComputerHandlers = Record<string, Handler>;

/**
 * A Computer that answers `client:*` from a table: `client:tool_call` echoes `params.message`, tool
 * `wait_for_cancel` answers only when `notify:tool_call_cancel` names its req_id (with `a2c_cancelled`),
 * tool `never` never answers. Other `client:*` get `{req_id, echo: event}`.
 */
export class TestComputer {
  readonly socket: Socket;
  readonly inbox: Inbox;
  readonly received: { event: string; payload: Record<string, unknown> }[] = [];
  private readonly cancelWaiters = new Map<string, () => void>();
  private readonly arrivalWaiters: (() => void)[] = [];

  constructor(
    url: string,
    readonly name: string,
    o: PeerOptions = {},
    private readonly handlers: ComputerHandlers = {},
  ) {
    this.socket = connectRaw(url, o);
    this.inbox = new Inbox(this.socket);
    for (const event of [
      'client:tool_call',
      'client:get_tools',
      'client:get_desktop',
      'client:get_config',
      'client:get_finder',
      'client:read_resource',
    ])
      this.socket.on(event, (payload: Record<string, unknown>, ack: (v: unknown) => void) => void this.answer(event, payload, ack));
    this.socket.on('notify:tool_call_cancel', (p: { req_id: string }) => this.cancelWaiters.get(p.req_id)?.());
  }

  async join(office: string): Promise<[boolean, string | null]> {
    await connected(this.socket);
    return join(this.socket, 'computer', this.name, office);
  }

  close(): void {
    this.socket.disconnect();
  }

  /** Resolves once this Computer has received its first request (at once if it has one already). */
  firstRequest(): Promise<void> {
    if (this.received.length) return Promise.resolve();
    return new Promise((resolve) => this.arrivalWaiters.push(resolve));
  }

  private async answer(event: string, payload: Record<string, unknown>, ack: (v: unknown) => void): Promise<void> {
    this.received.push({ event, payload });
    for (const w of this.arrivalWaiters.splice(0)) w();
    const custom = this.handlers[event];
    if (custom) return ack(await custom(payload));
    if (event !== 'client:tool_call') return ack({ req_id: payload.req_id, echo: event, computer: this.name });
    const tool = payload.tool_name;
    if (tool === 'never') return;
    if (tool === 'wait_for_cancel') {
      await new Promise<void>((resolve) => this.cancelWaiters.set(String(payload.req_id), resolve));
      return ack({ content: [], isError: true, _meta: { a2c_cancelled: true } });
    }
    const params = payload.params as { message?: unknown };
    ack({ content: [{ type: 'text', text: String(params.message ?? '') }], isError: false });
  }
}
