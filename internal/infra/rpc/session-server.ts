import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { CallerSession, ControlApi } from '../../domain/control.js';
import type { ToolSnapshot } from '../../domain/tool.js';
import type * as pb from '../../gen/mcpd/control/v1/control.js';
import { asMcpdError } from './status-map.js';
import { decodeObject, encodeJson } from './json-bytes.js';
import { dispatchSessionRequest } from './session-dispatch.js';

type Stream = ServerDuplexStream<pb.SessionClientMessage, pb.SessionServerMessage>;

/** Serves one gateway's Session stream: hello, then multiplexed requests, cancels and notifications. */
export function serveSession(api: ControlApi, stream: Stream): void {
  let session: CallerSession | undefined;
  let toolWatch: AsyncIterableIterator<ToolSnapshot> | undefined;
  const inflight = new Map<number, AbortController>();
  let closed = false;

  const send = (msg: pb.SessionServerMessage) => {
    if (!closed) stream.write(msg);
  };

  const finish = () => {
    if (closed) return;
    closed = true;
    for (const ac of inflight.values()) ac.abort(new Error('gateway session ended'));
    inflight.clear();
    void toolWatch?.return?.();
    if (session) api.unregisterCaller(session.id);
  };

  const onHello = (hello: pb.SessionHello) => {
    if (session) return;
    session = api.registerCaller(hello.caller || 'default', { pid: hello.pid || undefined, clientName: hello.clientName || undefined });
    send({ welcome: { sessionId: session.id, profile: session.profile, coreId: api.info().coreId } });
    void forwardToolChanges(session);
  };

  const forwardToolChanges = async (s: CallerSession) => {
    toolWatch = api.watchTools(s.caller);
    let last: string | undefined;
    for await (const snap of toolWatch) {
      if (last !== undefined && snap.etag !== last) {
        send({ notification: { method: 'notifications/tools/list_changed', paramsJson: encodeJson({ _meta: { 'mcpd/etag': snap.etag } }) } });
      }
      last = snap.etag;
    }
  };

  const onRequest = (req: pb.SessionRequest) => {
    const id = req.id;
    if (!session) {
      send({ response: { id, error: { reason: 'FAILED_PRECONDITION', message: 'send hello before any request', specCode: -32600, dataJson: Buffer.alloc(0) } } });
      return;
    }
    const ac = new AbortController();
    inflight.set(id, ac);
    const ctx = {
      session,
      signal: ac.signal,
      timeoutMs: req.timeoutMs > 0 ? req.timeoutMs : undefined,
      onProgress: (p: { progress: number; total?: number; message?: string }) =>
        send({ progress: { id, progress: { progress: p.progress, total: p.total ?? 0, hasTotal: p.total !== undefined, message: p.message ?? '' } } }),
    };
    Promise.resolve()
      .then(() => dispatchSessionRequest(api, req.method, decodeObject(req.paramsJson, `${req.method} params`), ctx))
      .then(
        (result) => send({ response: { id, resultJson: encodeJson(result) } }),
        (e: unknown) => {
          const err = asMcpdError(e);
          send({
            response: {
              id,
              error: { reason: err.reason, message: err.message, specCode: err.details.specCode ?? 0, dataJson: err.details.data === undefined ? Buffer.alloc(0) : encodeJson(err.details.data) },
            },
          });
        },
      )
      .finally(() => inflight.delete(id));
  };

  stream.on('data', (msg: pb.SessionClientMessage) => {
    if (msg.hello) onHello(msg.hello);
    else if (msg.request) onRequest(msg.request);
    else if (msg.cancel) inflight.get(msg.cancel.id)?.abort(new Error(msg.cancel.reason || 'cancelled by the client'));
  });
  stream.on('end', () => {
    finish();
    stream.end();
  });
  stream.on('error', finish);
  stream.on('cancelled', finish);
  stream.on('close', finish);
}
