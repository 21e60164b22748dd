import type { CallDone, DownstreamSession, StartedCall } from '../../../contract/model/downstream.js';
import { needsSignIn } from '../../../contract/model/sign-in.js';
import { isMcpdError, type McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import { viaPromise } from '../../domain/call-adapters.js';
import type { Admission } from './admission.js';
import type { CallEnd, Instance } from './instance.js';
import type { Liveness } from './liveness.js';
import type { PoolHealth } from './pool-health.js';
import type { PoolScope } from './pool-scope.js';
import type { ToolListing } from './tool-listing.js';
import type { CallOptions } from './types.js';

/** The pool's parts a tool call uses, and what the pool does when a call is abandoned or loses its sign-in. */
export interface LaneParts {
  scope: PoolScope;
  admission: Admission;
  health: PoolHealth;
  liveness: Liveness;
  listing: ToolListing;
  abandoned: (inst: Instance) => (key: string) => void;
  signInLost: (err: McpdError) => void;
}

/**
 * A caller's tool call on a pool, from its slot to its end (Pool.toolCall): taken at once when a slot is
 * free, else parked in the admission queue; the deadline, sign-in loss, the slow-call probe and health as
 * Pool.call does them for other requests.
 */
export class ToolCallLane {
  constructor(private readonly p: LaneParts) {}

  toolCall(name: string, args: JsonObject, opts: CallOptions, done: CallDone): StartedCall {
    const budget = opts.timeoutMs ?? this.p.scope.spec.callTimeoutSeconds * 1000;
    const deadline = this.p.scope.now() + budget;
    const mark = this.p.health.mark();
    const readOnly = opts.readOnly ?? this.readsOnly(name);
    const inst = this.p.admission.takeNow(opts.routingKey, readOnly);
    if (inst) return this.toolCallOn(inst, name, args, opts, { budget, deadline, mark }, done);
    return this.parkToolCall(name, args, { ...opts, readOnly }, { budget, deadline, mark }, done);
  }

  /** The server marks the tool read-only (`annotations.readOnlyHint`) in the listing at hand. */
  private readsOnly(name: string): boolean {
    const tool = this.p.listing.meta.tools?.find((t) => t.name === name);
    const annotations = tool?.definition.annotations;
    return typeof annotations === 'object' && annotations !== null && !Array.isArray(annotations) && annotations.readOnlyHint === true;
  }

  /** The call waits for a slot (or its instance's start); `cancel` while it waits ends the wait. */
  private parkToolCall(name: string, args: JsonObject, opts: CallOptions, at: CallClock, done: CallDone): StartedCall {
    const wait = new AbortController();
    let running: StartedCall | undefined;
    let cancelled: Error | undefined;
    this.p.admission.acquire({ ...opts, signal: wait.signal }, at.deadline, 'call').then(
      (inst) => {
        running = this.toolCallOn(inst, name, args, opts, at, done);
        // Cancelled between getting the slot and this turn: the call was sent, so it is cancelled downstream.
        if (cancelled) running.cancel(cancelled);
      },
      (err: unknown) => this.callFailed(err as Error, done),
    );
    return {
      cancel: (err) => {
        if (running) return running.cancel(err);
        cancelled = err;
        wait.abort(err);
      },
    };
  }

  private toolCallOn(inst: Instance, name: string, args: JsonObject, opts: CallOptions, at: CallClock, done: CallDone): StartedCall {
    const remaining = at.deadline - this.p.scope.now();
    const callEnded = inst.callStarted(opts.routingKey, this.p.abandoned(inst));
    const session = inst.session as DownstreamSession;
    const sessionOpts = {
      timeoutMs: remaining,
      deadlineMs: at.budget,
      onProgress: opts.onProgress,
      onResultJson: opts.onResultJson,
      taskParams: opts.taskParams,
    };
    const ended: CallDone = {
      result: (r) => {
        callEnded('answered');
        this.p.admission.release(inst);
        this.p.health.recovered(at.mark);
        done.result(r);
      },
      error: (err) => {
        // Only a request that was actually sent and went unanswered says anything about the server.
        if (remaining > 0 && isMcpdError(err) && err.reason === 'DEADLINE_EXCEEDED') this.p.liveness.probe(inst);
        callEnded(endOf(err));
        this.p.admission.release(inst);
        this.callFailed(err, done);
      },
    };
    if (session.toolCall) return session.toolCall(name, args, sessionOpts, ended);
    return viaPromise((signal) => session.callTool(name, args, { ...sessionOpts, signal }), ended);
  }

  /** A missing sign-in leaves the server out of listings, however the call reached it. */
  private callFailed(err: Error, done: CallDone): void {
    if (needsSignIn(err)) this.p.signInLost(err as McpdError);
    done.error(err);
  }
}

/** When a call began and how long it may take, fixed once whether it ran at once or waited. */
interface CallClock {
  budget: number;
  deadline: number;
  mark: ReturnType<PoolHealth['mark']>;
}

/** A call its caller stopped waiting for (cancelled, deadline, caller gone) may still be running in the server. */
export function endOf(err: unknown): CallEnd {
  return isMcpdError(err) && (err.reason === 'CANCELLED' || err.reason === 'DEADLINE_EXCEEDED') ? 'abandoned' : 'answered';
}
