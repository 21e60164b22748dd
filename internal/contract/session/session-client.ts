import { connect } from 'node:net';
import type { ProgressUpdate } from '../model/downstream.js';
import { McpdError, type ErrorReason } from '../../shared/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../shared/json.js';
import { FramedSessionStream } from './framed-session-stream.js';
import { encodeJson } from './json-bytes.js';
import { SESSION_PREFACE } from './session-framing.js';
import { decodeServerMessage, requestFrame } from './session-wire.js';
import { cappedTimeout } from '../../shared/timer-limit.js';
import type { WriteBatcher } from '../../shared/jsonrpc/turn-writes.js';
import { ChurnMap } from '../../shared/churn-map.js';
import {
  SessionClientMessage,
  SessionServerMessage,
  type ErrorInfo,
  type SessionHello,
  type SessionRequest,
  type SessionResponse,
  type SessionWelcome,
} from '../gen/mcpd/control/v1/session.js';

interface Pending {
  /** The result's JSON bytes as the core sent them. */
  resolve: (resultJson: Buffer) => void;
  reject: (e: Error) => void;
  onProgress?: (p: ProgressUpdate) => void;
}

/** Answers a request the core puts to this gateway (a server's sampling, elicitation or roots request). */
export type IncomingRequestHandler = (
  method: string,
  params: JsonObject,
  opts: { signal: AbortSignal; timeoutMs?: number },
) => Promise<JsonObject>;

/** Receives one raw call's outcome (`startRaw`): exactly one of result or error, unless it was cancelled. */
export interface RawCallHandlers {
  /** The result's JSON bytes as the core sent them. */
  result(resultJson: Buffer): void;
  error(e: McpdError): void;
  progress(p: ProgressUpdate): void;
}

export interface SessionRequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
}

/** The gateway's end of a Session: the gRPC `Session` RPC's duplex stream or a FramedSessionStream. */
export interface SessionClientStream {
  write(msg: SessionClientMessage): unknown;
  /** Framed streams: writes a frame encoded by session-wire.ts. */
  writeFrame?(frame: Buffer): unknown;
  end(): unknown;
  cancel(): unknown;
  on(event: 'data', listener: (msg: SessionServerMessage) => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  off(event: 'data', listener: (msg: SessionServerMessage) => void): unknown;
  off(event: 'error', listener: (err: Error) => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** Turns a stream's 'error' into the McpdError the caller sees. */
export type ErrorMapper = (err: Error) => McpdError;

const CLIENT_CODEC = {
  encode: (m: SessionClientMessage) => SessionClientMessage.encode(m).finish(),
  decode: (b: Uint8Array) => decodeServerMessage(b),
};

const EMPTY = Buffer.alloc(0);

/**
 * The gateway's end of the Session stream: one open bidi stream carries every request,
 * response, progress event, cancel and notification.
 */
export class SessionClient {
  private readonly pending = new ChurnMap<number, Pending>();
  private nextId = 1;
  private closed = false;
  private readonly closeHandlers: ((err: Error) => void)[] = [];
  private notificationHandler: (method: string, params: JsonObject) => void = () => {};
  private requestHandler?: IncomingRequestHandler;
  /** Requests from the core being answered, by the core's id. */
  private readonly incoming = new Map<number, AbortController>();

  private constructor(
    private readonly stream: SessionClientStream,
    readonly welcome: SessionWelcome,
    mapError: ErrorMapper,
  ) {
    stream.on('data', (m: SessionServerMessage) => this.onMessage(m));
    const ended = () => this.fail(new McpdError('UNAVAILABLE', 'the mcpd core closed the session'));
    stream.on('error', (e) => this.fail(mapError(e)));
    stream.on('end', ended);
    stream.on('close', ended);
  }

  /**
   * A framed Session on the control socket: what gateways use (decision 16). Rejects with UNAVAILABLE
   * when nothing listens there.
   */
  static connect(socketPath: string, hello: SessionHello, timeoutMs = 5000, batcher?: WriteBatcher): Promise<SessionClient> {
    const socket = connect(socketPath);
    socket.setNoDelay(true);
    socket.write(SESSION_PREFACE);
    const stream = new FramedSessionStream<SessionServerMessage, SessionClientMessage>(socket, CLIENT_CODEC, undefined, batcher);
    const mapError: ErrorMapper = (e) =>
      new McpdError('UNAVAILABLE', `mcpd core at ${socketPath}: ${(e as NodeJS.ErrnoException).code ?? e.message}`);
    return SessionClient.handshake(stream, hello, timeoutMs, mapError);
  }

  /** Says hello on an open stream (e.g. a channel of a MCPD-SESSION/2 connection) and waits for the welcome. */
  static handshake(stream: SessionClientStream, hello: SessionHello, timeoutMs: number, mapError: ErrorMapper): Promise<SessionClient> {
    return new Promise((resolve, reject) => {
      const timer = cappedTimeout(() => {
        stream.cancel();
        reject(new McpdError('UNAVAILABLE', `the mcpd core did not welcome the session within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        stream.off('data', onData);
        stream.off('error', onError);
        stream.off('close', onClose);
      };
      const onData = (m: SessionServerMessage) => {
        if (!m.welcome) return;
        done();
        resolve(new SessionClient(stream, m.welcome, mapError));
      };
      const onError = (e: Error) => {
        done();
        stream.cancel();
        reject(mapError(e));
      };
      const onClose = () => {
        done();
        reject(new McpdError('UNAVAILABLE', 'the mcpd core closed the session before welcoming it'));
      };
      stream.on('data', onData);
      stream.on('error', onError);
      stream.on('close', onClose);
      stream.write({ hello });
    });
  }

  onNotification(handler: (method: string, params: JsonObject) => void): void {
    this.notificationHandler = handler;
  }

  onRequest(handler: IncomingRequestHandler): void {
    this.requestHandler = handler;
  }

  /** A notification for the core (client capabilities, roots/list_changed). */
  notify(method: string, params: JsonObject): void {
    if (!this.closed) this.stream.write({ notification: { method, paramsJson: encodeJson(params) } });
  }

  onClose(handler: (err: Error) => void): void {
    this.closeHandlers.push(handler);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  request(method: string, params: JsonObject, opts: SessionRequestOptions = {}): Promise<JsonValue> {
    // The core asks a server for a tool call's progress only when the request carries a progress token,
    // as MCP does: a caller that wants progress gets a token here.
    const sent = method === 'tools/call' && opts.onProgress && !hasProgressToken(params) ? withProgressToken(params) : params;
    return this.requestRaw(method, encodeJson(sent), opts).then(parseJson);
  }

  /** The same with params and result as JSON bytes: a proxy passes them on without parsing them. */
  requestRaw(method: string, paramsJson: Buffer, opts: SessionRequestOptions = {}): Promise<Buffer> {
    if (this.closed) return Promise.reject(new McpdError('UNAVAILABLE', 'the session to the mcpd core is closed'));
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      const onAbort = () => {
        this.stream.write({ cancel: { id, reason: String(opts.signal?.reason ?? 'cancelled') } });
        settle(() => reject(new McpdError('CANCELLED', 'request cancelled by the client')));
      };
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        this.pending.delete(id);
        opts.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      this.pending.set(id, {
        resolve: (v) => settle(() => resolve(v)),
        reject: (e) => settle(() => reject(e)),
        onProgress: opts.onProgress,
      });
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.stream.write({ request: { id, method, paramsJson, timeoutMs: opts.timeoutMs ?? 0 } });
    });
  }

  /**
   * `requestRaw` for a proxy's hot path: no promise, no AbortSignal, the params already JSON text; the
   * outcome reaches `handlers` in the turn its frame is read. Returns the id `cancelRaw` takes.
   */
  startRaw(method: string, paramsJson: string, handlers: RawCallHandlers, timeoutMs = 0): number {
    const id = this.nextId++;
    if (this.closed) {
      handlers.error(new McpdError('UNAVAILABLE', 'the session to the mcpd core is closed'));
      return id;
    }
    this.pending.set(id, {
      resolve: (b) => handlers.result(b),
      reject: (e) => handlers.error(e as McpdError),
      onProgress: (p) => handlers.progress(p),
    });
    if (this.stream.writeFrame) this.stream.writeFrame(requestFrame(id, method, paramsJson, timeoutMs));
    else this.stream.write({ request: { id, method, paramsJson: Buffer.from(paramsJson, 'utf8'), timeoutMs } });
    return id;
  }

  /** Cancels a `startRaw` call: the core is told, its handlers hear nothing more. */
  cancelRaw(id: number, reason: string): void {
    if (!this.pending.delete(id) || this.closed) return;
    this.stream.write({ cancel: { id, reason } });
  }

  close(): void {
    if (this.closed) return;
    this.stream.end();
    this.fail(new McpdError('UNAVAILABLE', 'session closed'));
    this.stream.cancel();
  }

  private onMessage(m: SessionServerMessage): void {
    if (m.response) {
      const p = this.pending.get(m.response.id);
      if (!p) return;
      this.pending.delete(m.response.id);
      if (m.response.error) p.reject(errorFromInfo(m.response.error));
      else p.resolve(m.response.resultJson ?? EMPTY);
    } else if (m.progress?.progress) {
      const pr = m.progress.progress;
      this.pending
        .get(m.progress.id)
        ?.onProgress?.({ progress: pr.progress, total: pr.hasTotal ? pr.total : undefined, message: pr.message || undefined });
    } else if (m.notification) {
      const params = parseJson(m.notification.paramsJson);
      this.notificationHandler(m.notification.method, isJsonObject(params) ? params : {});
    } else if (m.request) {
      this.serveRequest(m.request);
    } else if (m.cancel) {
      this.incoming.get(m.cancel.id)?.abort(new Error(m.cancel.reason || 'cancelled by the core'));
    }
  }

  private serveRequest(req: SessionRequest): void {
    const { id, method } = req;
    const ac = new AbortController();
    this.incoming.set(id, ac);
    const handler = this.requestHandler;
    Promise.resolve()
      .then(() => {
        if (!handler) throw Object.assign(new Error(`this gateway does not answer "${method}"`), { code: -32601 });
        const params = parseJson(req.paramsJson);
        return handler(method, isJsonObject(params) ? params : {}, {
          signal: ac.signal,
          timeoutMs: req.timeoutMs > 0 ? req.timeoutMs : undefined,
        });
      })
      .then(
        (result) => this.answer(ac, { id, resultJson: encodeJson(result) }),
        (e: unknown) => this.answer(ac, { id, error: errorInfoOf(e) }),
      )
      .finally(() => this.incoming.delete(id));
  }

  private answer(ac: AbortController, response: SessionResponse): void {
    // A cancelled request gets no answer: the core has already failed it.
    if (!this.closed && !ac.signal.aborted) this.stream.write({ response });
  }

  private fail(err: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    for (const ac of this.incoming.values()) ac.abort(err);
    this.incoming.clear();
    for (const h of this.closeHandlers) h(err);
  }
}

function errorFromInfo(e: ErrorInfo): McpdError {
  return new McpdError(e.reason as ErrorReason, e.message, {
    specCode: e.specCode || undefined,
    data: e.dataJson && e.dataJson.length ? parseJson(e.dataJson) : undefined,
  });
}

/** The JSON-RPC code and message of a client's error travel unchanged; the SDK's "MCP error N:" prefix is dropped. */
function errorInfoOf(e: unknown): ErrorInfo {
  const o = (typeof e === 'object' && e !== null ? e : {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = typeof o.code === 'number' && Number.isSafeInteger(o.code) ? o.code : -32603;
  const message = (typeof o.message === 'string' ? o.message : String(e)).replace(/^MCP error -?\d+: /, '');
  const data =
    o.data !== undefined && typeof o.data === 'object' && o.data !== null && !Array.isArray(o.data) ? encodeJson(o.data) : Buffer.alloc(0);
  return { reason: 'DOWNSTREAM_ERROR', message, specCode: code, dataJson: data };
}

function parseJson(b: Uint8Array | undefined): JsonValue {
  if (!b || b.length === 0) return null;
  return JSON.parse(Buffer.from(b).toString('utf8')) as JsonValue;
}

function hasProgressToken(params: JsonObject): boolean {
  const meta = params._meta;
  return isJsonObject(meta ?? null) && (meta as JsonObject).progressToken !== undefined;
}

function withProgressToken(params: JsonObject): JsonObject {
  const meta = params._meta;
  return { ...params, _meta: { ...(isJsonObject(meta ?? null) ? (meta as JsonObject) : {}), progressToken: 1 } };
}
