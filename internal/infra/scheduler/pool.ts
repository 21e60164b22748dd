import { needsSignIn } from '../../domain/sign-in.js';
import type { DownstreamSession } from '../../domain/downstream.js';
import { isMcpdError, McpdError } from '../../domain/errors.js';
import type { JsonObject } from '../../domain/json.js';
import type { StartCause, StopCause } from '../../domain/runtime.js';
import type { TimerHandle } from './clock.js';
import type { DownstreamTool } from '../../domain/tool.js';
import type { Instance } from './instance.js';
import { cancelledWaitError, notReadyError, saturatedError, suspendedError } from './messages.js';
import { PoolCore } from './pool-core.js';
import { pickLeastLoaded } from './routing.js';
import { PROBE_TIMEOUT_MS, type CallOptions } from './types.js';
import type { WaitOutcome, Waiter } from './waiters.js';
import { must } from '../../domain/must.js';

/** A fingerprint-keyed pool: routing, bounded FIFO waiting, calls, hung detection, listings. */
export class Pool extends PoolCore {
  private turn = 0;
  private pingTimer?: TimerHandle;

  constructor(...args: ConstructorParameters<typeof PoolCore>) {
    super(...args);
    this.armPing();
  }

  override async close(cause: StopCause, why: string): Promise<void> {
    if (this.pingTimer !== undefined) this.deps.clock.clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
    return super.close(cause, why);
  }

  /**
   * Liveness between calls (runtime `pingIntervalSeconds`): every running instance is pinged; one that
   * does not answer within PROBE_TIMEOUT_MS is recycled, as after a missed deadline.
   */
  private armPing(): void {
    const seconds = this.deps.runtime.pingIntervalSeconds;
    if (!(seconds > 0) || this.closed) return;
    this.pingTimer = this.deps.clock.setTimeout(() => {
      this.pingTimer = undefined;
      if (this.closed) return;
      for (const inst of this.instances.values()) if (inst.state === 'ready' || inst.state === 'busy') this.probe(inst, 'interval');
      this.armPing();
    }, seconds * 1000);
  }

  /** Runs `fn` on an instance with a slot; the whole call, wait included, is bounded by the deadline. */
  async call<T>(opts: CallOptions, cause: StartCause, fn: (s: DownstreamSession, timeoutMs: number) => Promise<T>): Promise<T> {
    const deadline = this.now() + (opts.timeoutMs ?? this.spec.callTimeoutSeconds * 1000);
    const inst = await this.acquire(opts, deadline, cause);
    const remaining = deadline - this.now();
    const callEnded = inst.callStarted(opts.routingKey);
    try {
      return await fn(inst.session as DownstreamSession, remaining);
    } catch (err) {
      // Only a request that was actually sent and went unanswered says anything about the server.
      if (remaining > 0 && isMcpdError(err) && err.reason === 'DEADLINE_EXCEEDED') this.probe(inst);
      throw err;
    } finally {
      callEnded();
      this.release(inst);
    }
  }

  /**
   * Routing keys (caller sessions) a server→client request from `instanceId` may belong to: those with
   * a call in flight there (oldest call first); with none in flight, those bound to it (stateful pools).
   * The caller of the request decides what to do when there is more than one (decision 20: refuse).
   */
  callersOf(instanceId: string): string[] | undefined {
    const inst = this.instances.get(instanceId);
    if (!inst) return undefined;
    const keys = inst.keysInFlight();
    return keys.length > 0 ? keys : this.bindings.keysFor(instanceId, this.now());
  }

  /** Sends a client notification to every running instance; returns how many got it. */
  notifyInstances(method: string, params: JsonObject): number {
    let n = 0;
    for (const inst of this.instances.values()) {
      const session = inst.session;
      if (!inst.usable || !session?.sendNotification) continue;
      n++;
      session
        .sendNotification(method, params)
        .catch((err: Error) =>
          this.log('warning', 'instance.notify_failed', `sending ${method} to server ${this.spec.name} failed: ${err.message}`, inst),
        );
    }
    return n;
  }

  request(method: string, params: JsonObject, opts: CallOptions): Promise<JsonObject> {
    return this.call(opts, 'call', (s, timeoutMs) =>
      s.request(method, params, { timeoutMs, signal: opts.signal, onProgress: opts.onProgress }),
    );
  }

  /** Cached tool list; on a miss one shared fetch starts an instance (cause 'metadata') if none runs. */
  async tools(signal?: AbortSignal): Promise<DownstreamTool[]> {
    if (this.meta.tools) return this.meta.tools;
    if (this.suspendedReason) throw suspendedError(this.spec, this.suspendedReason);
    if (!this.meta.inflight) {
      const seq = this.meta.nextSeq();
      const fetch = this.call({}, 'metadata', (s) => s.listTools()).then(
        (tools) => {
          if (this.meta.setTools(tools, seq)) this.deps.events.toolsChanged(this.fingerprint);
          return this.meta.tools ?? tools;
        },
        (err: unknown) => {
          // A listing only leaves the server out; status is where its missing sign-in shows.
          if (needsSignIn(err)) this.noteError((err as Error).message);
          throw err;
        },
      );
      this.meta.inflight = quiet(fetch.finally(() => (this.meta.inflight = undefined)));
    }
    return raceSignal(
      this.meta.inflight,
      signal,
      () => new McpdError('CANCELLED', `listing tools of server ${this.spec.name} was cancelled`),
    );
  }

  /** Instances with a tools refresh running, and whether another list_changed came in meanwhile. */
  private readonly refreshing = new Map<Instance, { again: boolean }>();

  /**
   * A list_changed re-lists the instance's tools. A storm of them is coalesced: one listing at a time
   * per instance, plus one more after it when notifications arrived meanwhile (the running listing
   * may predate their change) — never one request per notification.
   */
  protected refreshTools(inst: Instance): void {
    const running = this.refreshing.get(inst);
    if (running) {
      running.again = true;
      return;
    }
    const session = inst.session;
    if (!session) return;
    const state = { again: false };
    this.refreshing.set(inst, state);
    const seq = this.meta.nextSeq();
    const fetch = session.listTools().then(
      (tools) => {
        if (this.meta.setTools(tools, seq)) this.deps.events.toolsChanged(this.fingerprint);
        return this.meta.tools ?? tools;
      },
      (err: Error) => {
        this.log('warning', 'tools.refresh_failed', `listing tools of server ${this.spec.name} failed: ${err.message}`, inst);
        throw err;
      },
    );
    if (!this.meta.inflight) this.meta.inflight = quiet(fetch.finally(() => (this.meta.inflight = undefined)));
    const settled = () => {
      this.refreshing.delete(inst);
      if (state.again && inst.session === session) this.refreshTools(inst);
    };
    fetch.then(settled, settled);
  }

  private acquire(opts: CallOptions, deadline: number, cause: StartCause): Promise<Instance> {
    if (this.suspendedReason) return Promise.reject(suspendedError(this.spec, this.suspendedReason));
    if (this.closed) return Promise.reject(new McpdError('UNAVAILABLE', `server ${this.spec.name} is no longer available`));
    if (opts.signal?.aborted) return Promise.reject(cancelledWaitError(this.spec));
    const key = this.spec.strategy === 'stateful' || this.pins.has(opts.routingKey) ? opts.routingKey : undefined;
    const ready = this.tryTake(key);
    if (ready) return Promise.resolve(ready);
    return new Promise<Instance>((resolve, reject) => {
      const now = this.now();
      const onAbort = () => this.dropWaiter(w, cancelledWaitError(this.spec), 'cancelled');
      const w: Waiter = {
        key,
        cause,
        enqueuedAt: now,
        deadline,
        waitLimit: now + this.deps.runtime.poolWaitSeconds * 1000,
        resolve,
        reject,
        detach: () => opts.signal?.removeEventListener('abort', onAbort),
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
      this.armWaiter(w);
      this.pump();
      this.changed();
    });
  }

  /** Takes a slot now if the routing rules allow; undefined means wait. */
  private tryTake(key: string | undefined): Instance | undefined {
    const now = this.now();
    const max = Math.max(1, this.spec.maxConcurrent);
    if (key !== undefined) {
      const bound = this.boundInstance(key, now);
      if (bound?.usable) {
        if (bound.inFlight >= max) return undefined; // a caller session stays on its instance
        return this.takeSlot(bound, key);
      }
    }
    const free = [...this.instances.values()].filter((i) => i.usable && i.inFlight < max);
    const inst = pickLeastLoaded(free, this.turn++);
    return inst ? this.takeSlot(inst, key) : undefined;
  }

  private takeSlot(inst: Instance, key: string | undefined): Instance {
    const now = this.now();
    inst.take(now);
    this.clearIdle(inst);
    if (this.pins.has(key)) this.pins.place(key, inst.id);
    else if (key !== undefined && this.spec.strategy === 'stateful') {
      this.bindings.bind(key, inst.id, now);
      inst.everBound = true;
    }
    this.changed();
    return inst;
  }

  /** Where a key's requests must go: its pinned instance, else (stateful) its bound one. */
  private boundInstance(key: string, now: number): Instance | undefined {
    const id = this.pins.has(key) ? this.pins.instanceOf(key) : this.spec.strategy === 'stateful' ? this.bindings.get(key, now) : undefined;
    return id === undefined ? undefined : this.instances.get(id);
  }

  private isBound(w: Waiter): boolean {
    if (w.key === undefined) return false;
    return this.boundInstance(w.key, this.now())?.usable === true;
  }

  /** Serves waiters in FIFO order, then starts instances while demand exceeds what is starting. */
  protected pump(): void {
    if (this.closed || this.suspendedReason) return;
    for (const w of this.waiters.snapshot()) {
      const inst = this.tryTake(w.key);
      if (!inst) continue;
      this.waiters.remove(w);
      this.settleWaiter(w, 'served');
      w.resolve(inst);
    }
    const unserved = this.waiters.snapshot().filter((w) => !this.isBound(w));
    let starting = [...this.instances.values()].filter((i) => i.state === 'starting').length;
    const perInstance = Math.max(1, this.spec.maxConcurrent);
    while (unserved.length > starting * perInstance && this.liveCount() < this.cap) {
      // The loop runs only while unserved is longer than starting × perInstance, so the index is in range.
      const first = must(unserved[Math.min(starting * perInstance, unserved.length - 1)], 'an unserved waiter');
      const cause: StartCause = this.liveCount() === 0 ? first.cause : 'scale-out';
      this.startInstance(cause);
      starting++;
    }
  }

  private armWaiter(w: Waiter): void {
    const at = Math.min(w.deadline, w.waitLimit);
    w.timer = this.deps.clock.setTimeout(() => this.waiterTimedOut(w), at - this.now());
  }

  private waiterTimedOut(w: Waiter): void {
    w.timer = undefined;
    const now = this.now();
    const saturated = this.isSaturated(w);
    if (now < w.deadline && !saturated) {
      // Waiting on a cold start, not on saturation: the call deadline alone bounds it.
      w.waitLimit = Infinity;
      return this.armWaiter(w);
    }
    const waited = now - w.enqueuedAt;
    const err = saturated
      ? saturatedError(this.spec, this.liveCount(), this.cap, this.waiters.length, waited)
      : notReadyError(this.spec, waited);
    this.dropWaiter(w, err, saturated ? 'saturated' : 'timeout');
  }

  /** At the cap with every instance full (or, for a bound caller, its instance full). */
  private isSaturated(w: Waiter): boolean {
    if (this.isBound(w)) return true;
    if (this.liveCount() < this.cap) return false;
    const live = [...this.instances.values()].filter((i) => !i.stopping);
    return live.every((i) => i.state !== 'starting');
  }

  private dropWaiter(w: Waiter, err: Error, outcome: WaitOutcome): void {
    if (!this.waiters.remove(w)) return;
    this.settleWaiter(w, outcome);
    w.reject(err);
    this.changed();
  }

  /** Ends a wait; the debug event 'pool.wait' carries how long it lasted (mcpd_pool_wait_seconds). */
  private settleWaiter(w: Waiter, outcome: WaitOutcome): void {
    if (w.timer !== undefined) this.deps.clock.clearTimeout(w.timer);
    w.timer = undefined;
    w.detach();
    const seconds = (this.now() - w.enqueuedAt) / 1000;
    this.log('debug', 'pool.wait', `a call to server ${this.spec.name} waited ${seconds} s for a slot (${outcome})`, undefined, {
      seconds,
      outcome,
    });
  }

  protected rejectWaiters(err: Error): void {
    for (const w of this.waiters.drain()) {
      this.settleWaiter(w, 'failed');
      w.reject(err);
    }
    this.changed();
  }

  private release(inst: Instance): void {
    inst.release(this.now());
    this.armIdle(inst);
    this.pump();
    this.changed();
  }

  /** After a missed deadline, or periodically: ping; no answer within 2 s means hung, so recycle the instance. */
  private probe(inst: Instance, why: 'deadline' | 'interval' = 'deadline'): void {
    const session = inst.session;
    if (!session || inst.probing || !inst.usable) return;
    inst.probing = true;
    session.request('ping', {}, { timeoutMs: PROBE_TIMEOUT_MS }).then(
      () => {
        inst.probing = false;
        if (why === 'deadline')
          this.log('info', 'instance.probe_ok', `server ${this.spec.name} missed a deadline but answers ping; kept`, inst);
      },
      (err: Error) => {
        inst.probing = false;
        this.noteError(`hung: ${err.message}`);
        const after = why === 'deadline' ? 'after a missed deadline' : 'to the periodic ping (pingIntervalSeconds)';
        this.log('warning', 'instance.hung', `server ${this.spec.name} does not answer ping ${after}; recycling it`, inst, {
          cause: 'hung',
          probe: why,
        });
        // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
        void this.stop(inst, 'hung');
      },
    );
  }
}

/** Marks a shared promise as handled; whoever awaits it still sees the rejection. */
function quiet<T>(p: Promise<T>): Promise<T> {
  // Only marks the shared promise handled; every awaiter still sees the rejection.
  p.catch(() => {});
  return p;
}

function raceSignal<T>(p: Promise<T>, signal: AbortSignal | undefined, onAbort: () => Error): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(onAbort());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(onAbort());
    signal.addEventListener('abort', abort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
