import type { CallOptions, CallerSession, ControlApi } from '../../../contract/control/control.js';
import type { JsonObject, JsonValue } from '../../../shared/json.js';
import type { StartedCall } from '../../../contract/model/downstream.js';
import { redactedError } from '../../../contract/session/status-map.js';
import { decodeObject, encodeJson } from '../../../contract/session/json-bytes.js';
import { dispatchSessionRequest } from './session-dispatch.js';
import { toolCallFromMcp, type CallReq } from '../../../contract/areas/tools.js';
import type { ProgressUpdate } from '../../../contract/model/downstream.js';
import type { SessionRequestContext } from '../../../contract/session/session-handler.js';
import type { SessionOutput } from './session-output.js';
import { ChurnMap } from '../../../shared/churn-map.js';
import { McpdError } from '../../../shared/errors.js';
import { RequestAdmission } from './request-admission.js';
import { taskModeOf, taskPlan } from './session-task-calls.js';
import type { TaskStartOptions } from '../../../contract/control/control-areas.js';
import type { ClientChannel } from '../../../contract/control/client-requests.js';
import { createTaskResult } from '../../../contract/model/tasks.js';
import type { ErrorInfo, SessionRequest } from '../../../contract/gen/mcpd/control/v1/session.js';

/**
 * A session's requests to the core: admitted within the session's output budget (request-admission.ts),
 * dispatched, answered on its output, cancellable until answered.
 */
export class SessionRequests {
  /** What cancels each request in flight: its AbortController, or a lane call's cancel. */
  private readonly inflight = new ChurnMap<number, { abort(reason: Error): void }>();
  readonly admission: RequestAdmission;

  constructor(
    private readonly api: ControlApi,
    private readonly output: SessionOutput,
    private readonly onClose: (cb: () => void) => void,
    outputBudget: number,
    /** The session's gateway, able to ask its client (set once the session said hello). */
    private readonly clientChannel: () => ClientChannel | undefined = () => undefined,
  ) {
    this.admission = new RequestAdmission(outputBudget, output);
    output.onDrain(() => this.admission.pump());
  }

  handle(req: SessionRequest, session: CallerSession | undefined): void {
    if (!session) {
      const error = {
        reason: 'FAILED_PRECONDITION',
        message: 'send hello before any request',
        specCode: -32600,
        dataJson: Buffer.alloc(0),
      };
      this.output.send({ response: { id: req.id, error } });
      return;
    }
    this.admission.submit(req.id, req.paramsJson.length, () => this.start(req, session));
  }

  /** Runs an admitted request; `done` tells admission, once, how many bytes its answer put on the output. */
  private start(req: SessionRequest, session: CallerSession): void {
    const id = req.id;
    let finished = false;
    const done = (bytes: number) => {
      if (finished) return;
      finished = true;
      this.admission.answered(bytes);
    };
    let params: JsonObject;
    try {
      params = decodeObject(req.paramsJson, `${req.method} params`);
    } catch (e) {
      this.output.send({ response: { id, error: errorOf(e) } });
      return done(0);
    }
    if (req.method === 'tools/call') return this.toolCall(id, req, params, session, done);
    const ac = new AbortController();
    this.inflight.set(id, ac);
    const output = this.output;
    // Set once the result went out early (onResultJson): what the handler returns or throws after is not sent again.
    let answered = false;
    const ctx: SessionRequestContext = {
      session,
      signal: ac.signal,
      timeoutMs: req.timeoutMs > 0 ? req.timeoutMs : undefined,
      onProgress: (p) =>
        output.send({
          progress: { id, progress: progressOf(p) },
        }),
      notify: (method, params) => output.notify(method, params),
      onClose: this.onClose,
      onResultJson: (json) => {
        answered = true;
        output.sendResultJson(id, json);
        done(json.length);
      },
    };
    // Dispatched in this turn (the request reaches its server without waiting for a microtask); a
    // synchronous throw (bad params) is answered like a rejection.
    let outcome: Promise<JsonValue>;
    try {
      outcome = dispatchSessionRequest(this.api, req.method, params, ctx);
    } catch (e) {
      outcome = Promise.reject(e);
    }
    // Encoding happens inside the chain, so a result that cannot be encoded is answered as an error
    // instead of escaping as an unhandled rejection.
    const release = () => {
      this.inflight.delete(id);
      done(0);
    };
    outcome
      .then((result) => {
        if (answered) return;
        const resultJson = encodeJson(result);
        output.send({ response: { id, resultJson } });
        done(resultJson.length);
      })
      .catch((e: unknown) => answered || output.send({ response: { id, error: errorOf(e) } }))
      // A rejection here is a broken stream only; its close handlers release the session.
      .then(release, release);
  }

  /**
   * A tools/call enters the door with a completion callback (decision 46): no AbortController, no promise
   * chain, with or without a progress token; a call that must wait is parked in the core, not here.
   */
  private toolCall(id: number, req: SessionRequest, params: JsonObject, session: CallerSession, done: (bytes: number) => void): void {
    const output = this.output;
    let call: CallReq;
    try {
      call = toolCallFromMcp(params);
    } catch (e) {
      output.send({ response: { id, error: errorOf(e) } });
      return done(0);
    }
    const mode = taskModeOf(params);
    if (mode !== undefined) {
      // Offered a task (or refused without one): decided once the tool is known, a plain call otherwise.
      taskPlan(this.api, session, params, call, mode).then(
        (plan) => {
          if (plan.kind === 'plain') return this.plainToolCall(id, req, call, session, done);
          if (plan.kind === 'askFirst') return this.askFirstToolCall(id, call, session, plan.opts, done);
          const resultJson = encodeJson(plan.result);
          output.send({ response: { id, resultJson } });
          done(resultJson.length);
        },
        (e: unknown) => {
          output.send({ response: { id, error: errorOf(e) } });
          done(0);
        },
      );
      return;
    }
    this.plainToolCall(id, req, call, session, done);
  }

  private plainToolCall(id: number, req: SessionRequest, call: CallReq, session: CallerSession, done: (bytes: number) => void): void {
    const output = this.output;
    let answered = false;
    let started: StartedCall | undefined;
    let over = false;
    this.inflight.set(id, { abort: (reason) => started?.cancel(reason) });
    const opts: CallOptions = {
      client: session.clientName,
      timeoutMs: req.timeoutMs > 0 ? req.timeoutMs : undefined,
      routingKey: session.id,
      // A client that sent no progress token is asked none of the server either (tools.ts, CallReq.progress).
      onProgress: call.progress ? (p) => output.send({ progress: { id, progress: progressOf(p) } }) : undefined,
      onResultJson: (json: Uint8Array) => {
        answered = true;
        output.sendResultJson(id, json);
        done(json.length);
      },
    };
    started = this.api.toolCall(session.caller, call.name, call.args, opts, {
      result: (result) => {
        over = true;
        this.inflight.delete(id);
        if (answered) return;
        const resultJson = encodeJson(result);
        output.send({ response: { id, resultJson } });
        done(resultJson.length);
      },
      error: (e) => {
        over = true;
        this.inflight.delete(id);
        output.send({ response: { id, error: errorOf(e) } });
        done(0);
      },
    });
    if (over) this.inflight.delete(id);
  }

  /**
   * A tool that asks before its task exists: its server's questions reach this session's client (MRTR on
   * this request) until one is answered, and this request is answered with the task then. Until that, the
   * request is the call's: cancelling it (or the session's end) cancels the call; after, the task owns it.
   */
  private askFirstToolCall(id: number, call: CallReq, session: CallerSession, opts: TaskStartOptions, done: (bytes: number) => void): void {
    const output = this.output;
    let over = false;
    /** Answers once; `send` puts the answer on the output and says how many bytes it took. */
    const end = (send: () => number) => {
      if (over) return;
      over = true;
      this.inflight.delete(id);
      done(send());
    };
    const answer = (result: JsonObject) =>
      end(() => {
        const resultJson = encodeJson(result);
        output.send({ response: { id, resultJson } });
        return resultJson.length;
      });
    const fail = (e: unknown) => end(() => (output.send({ response: { id, error: errorOf(e) } }), 0));
    const ask = this.clientChannel();
    if (!ask)
      return fail(
        new McpdError(
          'FAILED_PRECONDITION',
          `tool "${call.name}" asks its client before its task exists, and this session has no client to ask`,
        ),
      );
    let started: StartedCall | undefined;
    this.inflight.set(id, { abort: (reason) => started?.cancel(reason) });
    try {
      started = this.api.tasks.startAfterAnswer(session.caller, call.name, call.args, opts, ask, {
        task: (view) => answer(createTaskResult(view)),
        result: answer,
        error: fail,
      });
    } catch (e) {
      fail(e);
    }
  }

  cancel(id: number, reason: string): void {
    const why = reason || 'cancelled by the client';
    if (this.admission.remove(id)) {
      // Never started: answered here, as a started request's cancellation is.
      this.output.send({ response: { id, error: errorOf(new McpdError('CANCELLED', `${why} (before it started)`)) } });
      return;
    }
    this.inflight.get(id)?.abort(new Error(why));
  }

  abortAll(): void {
    this.admission.clear();
    for (const ac of this.inflight.values()) ac.abort(new Error('gateway session ended'));
    this.inflight.clear();
  }
}

function errorOf(e: unknown): ErrorInfo {
  const err = redactedError(e);
  let dataJson: Buffer = Buffer.alloc(0);
  try {
    if (err.details.data !== undefined) dataJson = encodeJson(err.details.data);
  } catch {
    // data that cannot be encoded is left out; the message still says what went wrong
  }
  return { reason: err.reason, message: err.message, specCode: err.details.specCode ?? 0, dataJson };
}

function progressOf(p: ProgressUpdate) {
  return { progress: p.progress, total: p.total ?? 0, hasTotal: p.total !== undefined, message: p.message ?? '' };
}
