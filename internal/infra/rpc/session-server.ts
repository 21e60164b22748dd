import type { CallerSession, ControlApi } from '../../domain/control.js';
import type * as pb from '../../gen/mcpd/control/v1/control.js';
import type { JsonObject, JsonValue } from '../../domain/json.js';
import { redactedError } from './status-map.js';
import { decodeObject, encodeJson } from './json-bytes.js';
import { dispatchSessionRequest } from './session-dispatch.js';
import { responseFrame } from './session-wire.js';
import { linkClient, type ClientLink } from './session-client-requests.js';
import { DEFAULT_SESSION_OUTBOUND_BYTES, OutboundGate, type GatedStream } from './outbound-gate.js';

/**
 * The core's end of a Session: a grpc-js ServerDuplexStream (the `Session` RPC) or a FramedSessionStream
 * (a framed connection on the control socket) — the same messages and events either way.
 */
export interface SessionServerStream extends GatedStream {
  write(msg: pb.SessionServerMessage): unknown;
  end(): unknown;
  /** Framed streams: writes a frame encoded by session-wire.ts. */
  writeFrame?(frame: Buffer): unknown;
  /** Drops the connection (framed streams); a gRPC call is ended instead. */
  cancel?(): unknown;
  on(event: 'data', listener: (msg: pb.SessionClientMessage) => void): unknown;
  on(event: 'end' | 'error' | 'cancelled' | 'close', listener: () => void): unknown;
}
type Stream = SessionServerStream;

export interface SessionServeOptions {
  /** Bytes the peer may leave unread before reading pauses and notifications drop (OutboundGate). */
  maxOutboundBytes?: number;
  log?: (level: 'info' | 'warning', event: string, fields: Record<string, unknown>) => void;
  /** A stream that has not said hello by then is ended (default DEFAULT_HELLO_TIMEOUT_MS). */
  helloTimeoutMs?: number;
  /** Framed connections: a partial frame with no further byte for this long ends the connection. */
  frameStallMs?: number;
}

export const DEFAULT_HELLO_TIMEOUT_MS = 10_000;

/** Serves one gateway's Session stream: hello, then multiplexed requests, cancels and notifications. */
export function serveSession(api: ControlApi, stream: Stream, opts: SessionServeOptions = {}): void {
  let session: CallerSession | undefined;
  const watches: AsyncIterableIterator<{ etag: string }>[] = [];
  const closeHooks: (() => void)[] = [];
  const inflight = new Map<number, AbortController>();
  let closed = false;
  /** Server→client requests to this gateway's MCP client, and its answers. */
  let client: ClientLink | undefined;

  const who = () => ({ caller: session?.caller, session: session?.id });
  const gate = new OutboundGate(stream, opts.maxOutboundBytes ?? DEFAULT_SESSION_OUTBOUND_BYTES, {
    paused: (buffered) =>
      opts.log?.('warning', 'session output over its limit; reading its requests paused until it catches up', { ...who(), buffered }),
    resumed: (dropped) =>
      opts.log?.(dropped > 0 ? 'warning' : 'info', 'session caught up; reading resumed', { ...who(), droppedNotifications: dropped }),
  });

  const send = (msg: pb.SessionServerMessage, admitted = false) => {
    if (closed || (!admitted && !gate.admit(msg.notification !== undefined || msg.progress !== undefined))) return;
    stream.write(msg);
    gate.wrote();
  };

  // A connection that opened a Session but never says who it is would be held forever (issue 14.8).
  const helloTimer = setTimeout(() => {
    if (session || closed) return;
    opts.log?.('warning', 'session ended: no hello in time', { timeoutMs: opts.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS });
    if (stream.cancel) stream.cancel();
    else stream.end();
    finish();
  }, opts.helloTimeoutMs ?? DEFAULT_HELLO_TIMEOUT_MS);
  helloTimer.unref();

  const finish = () => {
    clearTimeout(helloTimer);
    if (closed) return;
    closed = true;
    for (const ac of inflight.values()) ac.abort(new Error('gateway session ended'));
    inflight.clear();
    for (const w of watches) void w.return?.();
    for (const cb of closeHooks.splice(0)) cb();
    if (session) api.unregisterCaller(session.id);
  };

  const onHello = (hello: pb.SessionHello) => {
    if (session) return;
    session = api.registerCaller(hello.caller || 'default', { pid: hello.pid || undefined, clientName: hello.clientName || undefined });
    send({ welcome: { sessionId: session.id, profile: session.profile, coreId: api.info().coreId } });
    const link = (client = linkClient(api, session, send, hello.clientName || undefined));
    closeHooks.push(() => link.close());
    void forwardListChanges(api.watchTools(session.caller), 'notifications/tools/list_changed');
    void forwardListChanges(api.resources.watch(session.caller), 'notifications/resources/list_changed');
    void forwardListChanges(api.prompts.watch(session.caller), 'notifications/prompts/list_changed');
  };

  /** Tells the gateway when the caller's list (tools, resources, prompts) changed; the etag lets it skip stale nudges. */
  const forwardListChanges = async (watch: AsyncIterableIterator<{ etag: string }>, method: string) => {
    watches.push(watch);
    if (closed) void watch.return?.();
    let last: string | undefined;
    for await (const snap of watch) {
      if (last !== undefined && snap.etag !== last)
        send({ notification: { method, paramsJson: encodeJson({ _meta: { 'mcpd/etag': snap.etag } }) } });
      last = snap.etag;
    }
  };

  const onRequest = (req: pb.SessionRequest) => {
    const id = req.id;
    if (!session) {
      send({
        response: {
          id,
          error: { reason: 'FAILED_PRECONDITION', message: 'send hello before any request', specCode: -32600, dataJson: Buffer.alloc(0) },
        },
      });
      return;
    }
    const ac = new AbortController();
    inflight.set(id, ac);
    // Set once the result went out early (onResultJson): what the handler returns or throws after is not sent again.
    let answered = false;
    const ctx = {
      session,
      signal: ac.signal,
      timeoutMs: req.timeoutMs > 0 ? req.timeoutMs : undefined,
      onProgress: (p: { progress: number; total?: number; message?: string }) =>
        send({
          progress: {
            id,
            progress: { progress: p.progress, total: p.total ?? 0, hasTotal: p.total !== undefined, message: p.message ?? '' },
          },
        }),
      // Checked before encoding: a notification that would be dropped costs no JSON.
      notify: (method: string, params: JsonObject) => {
        if (!closed && gate.admit(true)) send({ notification: { method, paramsJson: encodeJson(params) } }, true);
      },
      onClose: (cb: () => void) => (closed ? cb() : void closeHooks.push(cb)),
      onResultJson: (json: string) => {
        answered = true;
        if (closed) return;
        if (!stream.writeFrame) return send({ response: { id, resultJson: Buffer.from(json, 'utf8') } });
        stream.writeFrame(responseFrame(id, json));
        gate.wrote();
      },
    };
    // Dispatched in this turn (the request reaches its server without waiting for a microtask); a
    // synchronous throw (bad params) is answered like a rejection.
    let outcome: Promise<JsonValue>;
    try {
      outcome = dispatchSessionRequest(api, req.method, decodeObject(req.paramsJson, `${req.method} params`), ctx);
    } catch (e) {
      outcome = Promise.reject(e);
    }
    // Encoding happens inside the chain, so a result that cannot be encoded is answered as an error
    // instead of escaping as an unhandled rejection (issue 14.1).
    const release = () => void inflight.delete(id);
    outcome
      .then((result) => answered || send({ response: { id, resultJson: encodeJson(result) } }))
      .catch((e: unknown) => answered || send({ response: { id, error: errorOf(e) } }))
      // A rejection here is a broken stream only; its close handlers release the session.
      .then(release, release);
  };

  stream.on('data', (msg: pb.SessionClientMessage) => {
    if (msg.hello) onHello(msg.hello);
    else if (msg.request) onRequest(msg.request);
    else if (msg.cancel) inflight.get(msg.cancel.id)?.abort(new Error(msg.cancel.reason || 'cancelled by the client'));
    else if (msg.response) client?.onResponse(msg.response);
    else if (msg.notification) client?.onNotification(msg.notification);
  });
  stream.on('end', () => {
    finish();
    stream.end();
  });
  stream.on('error', finish);
  stream.on('cancelled', finish);
  stream.on('close', finish);
}

function errorOf(e: unknown): pb.ErrorInfo {
  const err = redactedError(e);
  let dataJson: Buffer = Buffer.alloc(0);
  try {
    if (err.details.data !== undefined) dataJson = encodeJson(err.details.data);
  } catch {
    // data that cannot be encoded is left out; the message still says what went wrong
  }
  return { reason: err.reason, message: err.message, specCode: err.details.specCode ?? 0, dataJson };
}
