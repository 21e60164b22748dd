import { McpdError } from '../../../shared/errors.js';
import type { StartCause } from '../../../contract/model/runtime.js';
import type { IdleReaper } from './idle-reaper.js';
import type { Instance } from './instance.js';
import type { InstanceSet } from './instance-set.js';
import type { KeyRouting } from './key-routing.js';
import { cancelledWaitError, notReadyError, saturatedError, suspendedError } from './messages.js';
import type { PoolScope } from './pool-scope.js';
import type { CallOptions } from './types.js';
import { WaitQueue, type WaitOutcome, type Waiter } from './waiters.js';

/** Instances started past the cap for callers while others wait on their clients (the gateway parks 32 calls at most). */
const MAX_EXTRA_FOR_CLIENTS = 32;

/**
 * Admission of calls to one pool: a slot now when routing finds one, otherwise a FIFO wait bounded by
 * the call deadline and `poolWaitSeconds` (then POOL_SATURATED), and the starts that demand calls for.
 */
export class Admission {
  private readonly waiters = new WaitQueue();

  constructor(
    private readonly scope: PoolScope,
    private readonly instances: InstanceSet,
    private readonly routing: KeyRouting,
    private readonly idle: IdleReaper,
    /** Starts one instance (it joins `instances` at once, in state 'starting'). */
    private readonly start: (cause: StartCause) => void,
  ) {}

  get waiting(): number {
    return this.waiters.length;
  }

  /** A slot on an instance, now or after a wait; `release` gives it back. */
  acquire(opts: CallOptions, deadline: number, cause: StartCause): Promise<Instance> {
    const { scope } = this;
    if (scope.suspendedReason) return Promise.reject(suspendedError(scope.spec, scope.suspendedReason));
    if (scope.closed) return Promise.reject(new McpdError('UNAVAILABLE', `server ${scope.spec.name} is no longer available`));
    if (opts.signal?.aborted) return Promise.reject(cancelledWaitError(scope.spec));
    const key = this.routing.keyFor(opts.routingKey);
    const ready = this.tryTake(key, opts.readOnly);
    if (ready) return Promise.resolve(ready);
    return new Promise<Instance>((resolve, reject) => {
      const now = scope.now();
      const onAbort = () => this.drop(w, cancelledWaitError(scope.spec), 'cancelled');
      const w: Waiter = {
        key,
        readOnly: opts.readOnly,
        cause,
        enqueuedAt: now,
        deadline,
        waitLimit: now + scope.deps.runtime.poolWaitSeconds * 1000,
        resolve,
        reject,
        detach: () => opts.signal?.removeEventListener('abort', onAbort),
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
      this.arm(w);
      this.pump();
      scope.changed();
    });
  }

  /**
   * A slot now, or undefined when the call would wait (no free slot, or others wait before it) or cannot
   * run here (suspended, closed): the lane then leaves the call to `acquire`, which waits or says why.
   */
  takeNow(routingKey: string | undefined, readOnly = false): Instance | undefined {
    const { scope } = this;
    if (scope.suspendedReason || scope.closed || this.waiters.length > 0) return undefined;
    return this.tryTake(this.routing.keyFor(routingKey), readOnly);
  }

  /** A call on `inst` waits for its caller's answer: its slot serves read-only calls until the returned function runs. */
  lend(inst: Instance): () => void {
    const back = inst.lendSlot();
    this.pump();
    this.scope.changed();
    return back;
  }

  release(inst: Instance): void {
    inst.release(this.scope.now());
    this.idle.arm(inst);
    this.pump();
    this.scope.changed();
  }

  /** Serves waiters in FIFO order, then starts instances while demand exceeds what is starting. */
  pump(): void {
    const { scope, instances } = this;
    if (!scope.open) return;
    for (const w of this.waiters.snapshot()) {
      const inst = this.tryTake(w.key, w.readOnly);
      if (!inst) continue;
      this.waiters.remove(w);
      this.settle(w, 'served');
      w.resolve(inst);
    }
    const unserved = this.waiters.snapshot().filter((w) => !this.isBound(w));
    let starting = instances.startingCount();
    const perInstance = scope.perInstance;
    while (unserved.length > starting * perInstance && instances.liveCount() < this.cap()) {
      const first = unserved[Math.min(starting * perInstance, unserved.length - 1)];
      const cause: StartCause = instances.liveCount() === 0 ? (first?.cause ?? 'call') : 'scale-out';
      this.start(cause);
      starting++;
    }
  }

  /** Fails every waiting call with `err`. */
  failAll(err: Error): void {
    for (const w of this.waiters.drain()) {
      this.settle(w, 'failed');
      w.reject(err);
    }
    this.scope.changed();
  }

  /** Takes a slot now if the routing rules allow; undefined means wait. */
  private tryTake(key: string | undefined, readOnly = false): Instance | undefined {
    const now = this.scope.now();
    const inst = this.routing.choose(key, this.scope.perInstance, now, readOnly);
    if (!inst) return undefined;
    inst.take(now);
    this.idle.disarm(inst);
    this.routing.taken(inst, key, now);
    this.scope.changed();
    return inst;
  }

  private isBound(w: Waiter): boolean {
    if (w.key === undefined) return false;
    return this.routing.boundInstance(w.key, this.scope.now())?.usable === true;
  }

  private arm(w: Waiter): void {
    const at = Math.min(w.deadline, w.waitLimit);
    w.timer = this.scope.deps.clock.setTimeout(() => this.timedOut(w), at - this.scope.now());
  }

  private timedOut(w: Waiter): void {
    w.timer = undefined;
    const { scope, instances } = this;
    const now = scope.now();
    const saturated = this.isSaturated(w);
    if (now < w.deadline && !saturated) {
      // Waiting on a cold start, not on saturation: the call deadline alone bounds it.
      w.waitLimit = Infinity;
      return this.arm(w);
    }
    const waited = now - w.enqueuedAt;
    const err = saturated
      ? saturatedError(scope.spec, instances.liveCount(), scope.cap, this.waiters.length, waited)
      : notReadyError(scope.spec, waited);
    this.drop(w, err, saturated ? 'saturated' : 'timeout');
  }

  /** At the cap with every instance full (or, for a bound caller, its instance full). */
  private isSaturated(w: Waiter): boolean {
    if (this.isBound(w)) return true;
    if (this.instances.liveCount() < this.cap()) return false;
    return this.instances.noneLiveStarting();
  }

  /**
   * How many instances may run: the spec's cap, plus one for each instance whose every call waits on its
   * client (a parked MRTR call waits up to 120 s for the client's retry): such an instance does no work, and
   * other callers must not wait behind it. A singleton stays one process; the extra is bounded.
   */
  private cap(): number {
    const { scope } = this;
    if (scope.spec.strategy === 'singleton') return scope.cap;
    return scope.cap + Math.min(this.instances.waitingOnClientCount(), MAX_EXTRA_FOR_CLIENTS);
  }

  private drop(w: Waiter, err: Error, outcome: WaitOutcome): void {
    if (!this.waiters.remove(w)) return;
    this.settle(w, outcome);
    w.reject(err);
    this.scope.changed();
  }

  /** Ends a wait; the debug event 'pool.wait' carries how long it lasted (mcpd_pool_wait_seconds). */
  private settle(w: Waiter, outcome: WaitOutcome): void {
    if (w.timer !== undefined) this.scope.deps.clock.clearTimeout(w.timer);
    w.timer = undefined;
    w.detach();
    const seconds = (this.scope.now() - w.enqueuedAt) / 1000;
    this.scope.log(
      'debug',
      'pool.wait',
      `a call to server ${this.scope.spec.name} waited ${seconds} s for a slot (${outcome})`,
      undefined,
      {
        seconds,
        outcome,
      },
    );
  }
}
