import type { DownstreamSession } from '../../../contract/model/downstream.js';
import type { InstanceState, InstanceStatus, StartCause, StopCause } from '../../../contract/model/runtime.js';
import type { TimerHandle } from './clock.js';

/** How a call on an instance ended: with the server's answer, or with its caller no longer waiting for one. */
export type CallEnd = 'answered' | 'abandoned';

/** Routing keys given to calls that came without one: they belong to no caller session. */
const ANONYMOUS_CALL_PREFIX = 'mcpd/anonymous-call:';
/**
 * Stands, among the keys a server request may belong to, for calls whose caller stopped waiting
 * (cancelled, deadline, disconnect) while the server may still be working on them: no session can own it.
 */
export const ABANDONED_CALL_KEY = 'mcpd/abandoned-call';
let anonymousCalls = 0;

/** One server process/session in a pool, with its load and lifecycle bookkeeping. */
export class Instance {
  state: InstanceState = 'starting';
  inFlight = 0;
  session?: DownstreamSession;
  lastUsedAt: number;
  idleTimer?: TimerHandle;
  probing = false;
  /** Held a stateful binding once: its stop after the bindings expire is a TTL stop. */
  everBound = false;
  stopCause?: StopCause;
  /** Settles when the start attempt is over (attached, failed or discarded). */
  startTask?: Promise<void>;
  stopping?: Promise<void>;
  /** Cancels a launch still in progress when the instance is stopped first. */
  readonly launchAbort = new AbortController();
  private drainWaiters: (() => void)[] = [];
  /** One entry per call in flight that carries a routing key, in the order the calls started. */
  private readonly callKeys: { key: string }[] = [];
  /**
   * Calls that ended here without the server's answer whose cancel the server has not yet been seen to
   * read. Until it has, a request from it may be theirs, and over stdio nothing says whose a request is,
   * so the instance's server requests are refused (decision 20). The pool pings after each cancel: the
   * answer comes after the server read the cancel, and then the call can ask no more (decision 58).
   */
  private abandonedCalls = 0;
  /**
   * Slots lent by calls whose server is asking their caller (a question open in a client): a read-only call
   * may run in one meanwhile (decision 64), so an unanswered question does not starve other callers' reads.
   */
  private lent = 0;
  /** Questions from this server to a client (sampling, elicitation, roots) not yet answered. */
  private openQuestions = 0;

  constructor(
    readonly id: string,
    readonly startCause: StartCause,
    readonly startedAt: number,
  ) {
    this.lastUsedAt = startedAt;
  }

  /** Ready or busy: can take calls (given a free slot). */
  get usable(): boolean {
    return (this.state === 'ready' || this.state === 'busy') && !this.stopping;
  }

  take(now: number): void {
    this.inFlight++;
    this.lastUsedAt = now;
    if (this.state === 'ready') this.state = 'busy';
  }

  release(now: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastUsedAt = now;
    if (this.inFlight === 0) {
      if (this.state === 'busy') this.state = 'ready';
      for (const w of this.drainWaiters.splice(0)) w();
    }
  }

  /**
   * Whether a call fits: a free slot under `maxConcurrent`, or for a read-only call also a slot lent by a
   * call waiting for its caller's answer. `callerCallsOnly`: only callers' calls take slots.
   */
  hasRoom(maxConcurrent: number, readOnly = false, callerCallsOnly = false): boolean {
    // A server that asks its client takes one caller's call at a time, so its questions have one caller to
    // go to; the core's own requests (listings for the cache) ask nobody and do not count there. A cancelled
    // call the server has not yet been seen to drop still counts: a call put here meanwhile would have its
    // questions refused, as they might be the cancelled call's (decision 58).
    const busy = callerCallsOnly ? this.callKeys.length + this.abandonedCalls : this.inFlight;
    return busy < maxConcurrent + (readOnly ? this.lent : 0);
  }

  /**
   * A call here waits for its caller's answer to its server's question: its slot is lent to read-only calls
   * until the returned function is called (the question answered or withdrawn). At most one per call in flight.
   */
  lendSlot(): () => void {
    if (this.lent >= this.callKeys.length) return () => undefined;
    this.lent++;
    let back = false;
    return () => {
      if (back) return;
      back = true;
      this.lent--;
    };
  }

  /** Records whose call runs here, so a server→client request can be routed back to that caller. */
  callStarted(key: string | undefined, onAbandoned?: (key: string) => void): (ended?: CallEnd) => void {
    // A call without a routing key still counts: a server request during it could be its caller's,
    // so it must make the request ambiguous rather than let it go to another session (decision 20).
    const entry = { key: key ?? `${ANONYMOUS_CALL_PREFIX}${++anonymousCalls}` };
    this.callKeys.push(entry);
    return (ended = 'answered') => {
      const i = this.callKeys.indexOf(entry);
      if (i < 0) return;
      this.callKeys.splice(i, 1);
      if (ended !== 'abandoned') return;
      this.abandonedCalls++;
      onAbandoned?.(entry.key);
    };
  }

  /** The server asked a client; the returned function says the answer came (or the question ended). */
  asked(): () => void {
    this.openQuestions++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.openQuestions--;
    };
  }

  /**
   * Every call here waits on an answer from its client (one question per call at most counts): the server
   * does no work until the client answers, which for a parked 2026 call may take minutes.
   */
  get waitingOnClient(): boolean {
    return this.inFlight > 0 && this.openQuestions >= this.inFlight;
  }

  /** The server answered the ping sent after one abandoned call's cancel: that call can ask no more. */
  cancelConfirmed(): void {
    this.abandonedCalls = Math.max(0, this.abandonedCalls - 1);
  }

  /** Abandoned calls whose cancel the server has not been seen to read (status, logs). */
  get unconfirmedCancels(): number {
    return this.abandonedCalls;
  }

  /**
   * Routing keys with a call in flight here, the one whose oldest call started first leading; with an
   * abandoned call behind it, ABANDONED_CALL_KEY too, so a server request is never traced to a live call alone.
   */
  keysInFlight(): string[] {
    const keys = [...new Set(this.callKeys.map((e) => e.key))];
    return this.abandonedCalls > 0 ? [...keys, ABANDONED_CALL_KEY] : keys;
  }

  /** Resolves when no call is in flight. */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((r) => this.drainWaiters.push(r));
  }

  status(boundKeys: number, pinnedKeys: number): InstanceStatus {
    return {
      id: this.id,
      state: this.state,
      pid: this.session?.pid,
      inFlight: this.inFlight,
      startedAt: this.startedAt,
      lastUsedAt: this.lastUsedAt,
      startCause: this.startCause,
      boundKeys,
      pinnedKeys,
      protocolVersion: this.session?.protocolVersion,
    };
  }
}
