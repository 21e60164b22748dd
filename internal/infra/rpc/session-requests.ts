import type { CallerSession, ControlApi } from '../../domain/control.js';
import type * as pb from '../../gen/mcpd/control/v1/control.js';
import type { JsonValue } from '../../domain/json.js';
import { redactedError } from './status-map.js';
import { decodeObject, encodeJson } from './json-bytes.js';
import { dispatchSessionRequest } from './session-dispatch.js';
import type { SessionRequestContext } from './session-handler.js';
import type { SessionOutput } from './session-output.js';
import { ChurnMap } from '../../domain/churn-map.js';

/** A session's requests to the core: dispatched, answered on its output, cancellable until answered. */
export class SessionRequests {
  private readonly inflight = new ChurnMap<number, AbortController>();

  constructor(
    private readonly api: ControlApi,
    private readonly output: SessionOutput,
    private readonly onClose: (cb: () => void) => void,
  ) {}

  handle(req: pb.SessionRequest, session: CallerSession | undefined): void {
    const id = req.id;
    if (!session) {
      const error = {
        reason: 'FAILED_PRECONDITION',
        message: 'send hello before any request',
        specCode: -32600,
        dataJson: Buffer.alloc(0),
      };
      this.output.send({ response: { id, error } });
      return;
    }
    const ac = new AbortController();
    this.inflight.set(id, ac);
    const output = this.output;
    // Set once the result went out early (onResultJson): what the handler returns or throws after is not sent again.
    let answered = false;
    const ctx: SessionRequestContext = {
      session,
      signal: ac.signal,
      abort: (reason) => ac.abort(reason),
      timeoutMs: req.timeoutMs > 0 ? req.timeoutMs : undefined,
      onProgress: (p) =>
        output.send({
          progress: {
            id,
            progress: { progress: p.progress, total: p.total ?? 0, hasTotal: p.total !== undefined, message: p.message ?? '' },
          },
        }),
      notify: (method, params) => output.notify(method, params),
      onClose: this.onClose,
      onResultJson: (json) => {
        answered = true;
        output.sendResultJson(id, json);
      },
    };
    // Dispatched in this turn (the request reaches its server without waiting for a microtask); a
    // synchronous throw (bad params) is answered like a rejection.
    let outcome: Promise<JsonValue>;
    try {
      outcome = dispatchSessionRequest(this.api, req.method, decodeObject(req.paramsJson, `${req.method} params`), ctx);
    } catch (e) {
      outcome = Promise.reject(e);
    }
    // Encoding happens inside the chain, so a result that cannot be encoded is answered as an error
    // instead of escaping as an unhandled rejection (issue 14.1).
    const release = () => void this.inflight.delete(id);
    outcome
      .then((result) => answered || output.send({ response: { id, resultJson: encodeJson(result) } }))
      .catch((e: unknown) => answered || output.send({ response: { id, error: errorOf(e) } }))
      // A rejection here is a broken stream only; its close handlers release the session.
      .then(release, release);
  }

  cancel(id: number, reason: string): void {
    this.inflight.get(id)?.abort(new Error(reason || 'cancelled by the client'));
  }

  abortAll(): void {
    for (const ac of this.inflight.values()) ac.abort(new Error('gateway session ended'));
    this.inflight.clear();
  }
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
