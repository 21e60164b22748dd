import type { CallerSession, ControlApi } from '../../../contract/control/control.js';
import { linkClient, type ClientLink } from './session-client-requests.js';
import { DEFAULT_SESSION_OUTBOUND_BYTES } from './outbound-gate.js';
import { SessionOutput, type SessionLog, type SessionSink } from './session-output.js';
import { ListChangeForwarder } from './session-list-watches.js';
import { SessionRequests } from './session-requests.js';
import type { WriteBatcher } from '../../../shared/jsonrpc/turn-writes.js';
import type { SessionTally, TalliedSession } from './session-tally.js';
import type { AdmissionCounts } from './request-admission.js';
import type { SessionClientMessage, SessionHello } from '../../../contract/gen/mcpd/control/v1/session.js';

/**
 * The core's end of a Session: a grpc-js ServerDuplexStream (the `Session` RPC), a FramedSessionStream
 * (a MCPD-SESSION/1 connection) or one channel of a MCPD-SESSION/2 connection — the same messages and
 * events either way.
 */
export interface SessionServerStream extends SessionSink {
  end(): unknown;
  /** Drops the connection (framed streams) or the channel (/2, with `reason` for the client); a gRPC call is ended instead. */
  cancel?(reason?: string): unknown;
  on(event: 'data', listener: (msg: SessionClientMessage) => void): unknown;
  on(event: 'end' | 'error' | 'cancelled' | 'close' | 'drain', listener: () => void): unknown;
}

export interface SessionServeOptions {
  /**
   * The Session's output budget: bytes the peer may leave unread before reading pauses, notifications
   * drop (OutboundGate) and no further request starts (RequestAdmission).
   */
  maxOutboundBytes?: number;
  /** Where the Session's output accounting is summed for /metrics. */
  tally?: SessionTally;
  log?: SessionLog;
  /** A stream that has not said hello by then is ended (default DEFAULT_HELLO_TIMEOUT_MS). */
  helloTimeoutMs?: number;
  /** Framed connections: a partial frame with no further byte for this long ends the connection. */
  frameStallMs?: number;
  /** Sessions one MCPD-SESSION/2 connection may carry at once (default DEFAULT_CHANNELS_PER_CONNECTION). */
  maxChannelsPerConnection?: number;
  /** The process's write batcher (turn-writes.ts), shared with the servers' stdio. */
  batcher?: WriteBatcher;
}

export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;
export const DEFAULT_CHANNELS_PER_CONNECTION = 1024;

/** Serves one gateway's Session stream: hello, then multiplexed requests, cancels and notifications. */
export function serveSession(api: ControlApi, stream: SessionServerStream, opts: SessionServeOptions = {}): void {
  new ServedSession(api, stream, opts);
}

/**
 * One Session in the core, from hello to close. Its parts: the output (gated writes), the requests in
 * flight, the list-change watches, and the server→client request link; closing releases all of them
 * and the caller registration, whatever ended the stream.
 */
class ServedSession implements TalliedSession {
  private session?: CallerSession;
  private client?: ClientLink;
  private closed = false;
  private readonly closeHooks: (() => void)[] = [];
  private readonly output: SessionOutput;
  private readonly requests: SessionRequests;
  private readonly watches: ListChangeForwarder;
  private readonly helloTimer: NodeJS.Timeout;

  constructor(
    private readonly api: ControlApi,
    private readonly stream: SessionServerStream,
    private readonly opts: SessionServeOptions,
  ) {
    const who = () => ({ caller: this.session?.caller, session: this.session?.id });
    const budget = opts.maxOutboundBytes ?? DEFAULT_SESSION_OUTBOUND_BYTES;
    this.output = new SessionOutput(stream, budget, who, opts.log);
    this.requests = new SessionRequests(
      api,
      this.output,
      (cb) => (this.closed ? cb() : void this.closeHooks.push(cb)),
      budget,
      () => this.client?.channel,
    );
    opts.tally?.add(this);
    this.watches = new ListChangeForwarder(this.output);
    // A connection that opened a Session but never says who it is would be held forever.
    const helloMs = opts.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS;
    this.helloTimer = setTimeout(() => this.helloTimedOut(helloMs), helloMs);
    this.helloTimer.unref();

    stream.on('data', (msg: SessionClientMessage) => this.onMessage(msg));
    stream.on('end', () => {
      this.finish();
      stream.end();
    });
    const finish = () => this.finish();
    stream.on('error', finish);
    stream.on('cancelled', finish);
    stream.on('close', finish);
  }

  unread(): number {
    return this.output.unread();
  }

  get peak(): number {
    return this.output.peak;
  }

  get counts(): AdmissionCounts {
    return this.requests.admission.counts;
  }

  private onMessage(msg: SessionClientMessage): void {
    if (msg.hello) this.onHello(msg.hello);
    else if (msg.request) this.requests.handle(msg.request, this.session);
    else if (msg.cancel) this.requests.cancel(msg.cancel.id, msg.cancel.reason);
    else if (msg.response) this.client?.onResponse(msg.response);
    else if (msg.notification) this.client?.onNotification(msg.notification);
  }

  private onHello(hello: SessionHello): void {
    if (this.session || this.closed) return;
    const session = this.api.registerCaller(hello.caller || 'default', {
      pid: hello.pid || undefined,
      clientName: hello.clientName || undefined,
    });
    this.session = session;
    this.output.send({ welcome: { sessionId: session.id, profile: session.profile, coreId: this.api.info().coreId } });
    const link = (this.client = linkClient(this.api, session, (m) => this.output.send(m), hello.clientName || undefined));
    this.closeHooks.push(() => link.close());
    this.watches.start(this.api, session);
  }

  private helloTimedOut(timeoutMs: number): void {
    if (this.session || this.closed) return;
    this.opts.log?.('warning', 'session ended: no hello in time', { timeoutMs });
    if (this.stream.cancel) this.stream.cancel(`no hello within ${timeoutMs} ms`);
    else this.stream.end();
    this.finish();
  }

  private finish(): void {
    clearTimeout(this.helloTimer);
    if (this.closed) return;
    this.closed = true;
    this.output.close();
    this.requests.abortAll();
    this.watches.close();
    this.opts.tally?.remove(this);
    const { deferred } = this.counts;
    if (deferred > 0 || this.peak > (this.opts.maxOutboundBytes ?? DEFAULT_SESSION_OUTBOUND_BYTES))
      this.opts.log?.('info', 'session output accounting at close', {
        caller: this.session?.caller,
        deferredRequests: deferred,
        peakUnreadBytes: this.peak,
      });
    for (const cb of this.closeHooks.splice(0)) cb();
    if (this.session) this.api.unregisterCaller(this.session.id);
  }
}
