import type { CallAdmission } from '../../contract/control/control.js';
import { McpdError } from '../../shared/errors.js';
import { cappedTimeout } from '../../shared/timer-limit.js';
import { ChurnMap } from '../../shared/churn-map.js';

/**
 * Admission of calls for a graceful stop. Until `close`, calls run and are counted; after it, new ones
 * are refused with a clear error, and those in flight may finish until the grace period ends, when
 * they are cancelled (downstream too, through their signal).
 */
export class CallGate implements CallAdmission {
  private running = 0;
  /** When a stop began, the end of its grace period. */
  private deadline?: number;
  /** Aborted when the grace period ends: every call still running is cancelled with its reason. */
  private readonly cutoff = new AbortController();
  private readonly idleWaiters = new Set<() => void>();
  /** The aborts of running calls whose callers own their signals (run's `abort`): the cutoff calls each. */
  private readonly owned = new ChurnMap<number, (reason: Error) => void>();
  private ownedSeq = 0;

  constructor(private readonly describeStop: () => string = () => 'the mcpd core is stopping') {}

  get inFlight(): number {
    return this.running;
  }

  get stopDeadline(): number | undefined {
    return this.deadline;
  }

  async run<T>(
    what: string,
    signal: AbortSignal | undefined,
    fn: (signal: AbortSignal) => Promise<T>,
    abort?: (reason: Error) => void,
  ): Promise<T> {
    if (this.deadline !== undefined) {
      throw new McpdError(
        'UNAVAILABLE',
        `${this.describeStop()}: new calls are refused (${what}); retry once a core runs again (a gateway with autostart starts one)`,
      );
    }
    this.running++;
    try {
      return signal && abort ? await this.runOwned(signal, abort, fn) : await this.runCombined(signal, fn);
    } finally {
      this.ended();
    }
  }

  /**
   * Counts a call that is no promise (the lane of decision 46) until `leave`; `abort` is how the cutoff
   * ends it. Undefined once a stop began: the caller then takes `run`, which refuses with the reason.
   */
  enter(abort: (reason: Error) => void): number | undefined {
    if (this.deadline !== undefined) return undefined;
    this.running++;
    const token = ++this.ownedSeq;
    this.owned.set(token, abort);
    return token;
  }

  leave(token: number): void {
    if (this.owned.delete(token)) this.ended();
  }

  private ended(): void {
    if (--this.running === 0) for (const wake of [...this.idleWaiters]) wake();
  }

  /**
   * The caller owns the signal and lets the cutoff abort it: no signal of the gate's own per call
   * (two listeners and a controller on the hottest path of the core).
   */
  private async runOwned<T>(signal: AbortSignal, abort: (reason: Error) => void, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const token = ++this.ownedSeq;
    this.owned.set(token, abort);
    try {
      return await fn(signal);
    } catch (e) {
      // A call cut off by the end of the grace period says so, whatever the layer below made of the abort.
      if (this.cutoff.signal.aborted && signal.reason === this.cutoff.signal.reason) throw this.cutoff.signal.reason as Error;
      throw e;
    } finally {
      this.owned.delete(token);
    }
  }

  private async runCombined<T>(signal: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // One signal for both the caller's cancellation and the cutoff; listeners are removed after the
    // call, so a long-lived cutoff signal does not collect one per call.
    const combined = new AbortController();
    const fromCaller = () => combined.abort(signal?.reason);
    const fromCutoff = () => combined.abort(this.cutoff.signal.reason);
    if (signal?.aborted) fromCaller();
    signal?.addEventListener('abort', fromCaller, { once: true });
    this.cutoff.signal.addEventListener('abort', fromCutoff, { once: true });
    try {
      return await fn(combined.signal);
    } catch (e) {
      if (this.cutoff.signal.aborted && !signal?.aborted) throw this.cutoff.signal.reason as Error;
      throw e;
    } finally {
      signal?.removeEventListener('abort', fromCaller);
      this.cutoff.signal.removeEventListener('abort', fromCutoff);
    }
  }

  /**
   * Refuses new calls from now on. Returns false when a stop was already under way. `graceMs` bounds
   * how long `drain` waits for calls in flight.
   */
  close(graceMs: number): boolean {
    if (this.deadline !== undefined) return false;
    this.deadline = Date.now() + graceMs;
    return true;
  }

  get closed(): boolean {
    return this.deadline !== undefined;
  }

  /**
   * Waits until no call runs or the grace period ends; then cancels the calls left, waits (bounded by
   * `settleMs`) for them to answer their callers, and reports how many had to be cancelled.
   */
  async drain(settleMs = 2000): Promise<{ cancelled: number }> {
    if (this.deadline === undefined) throw new Error('CallGate.drain before close');
    if (await this.idleWithin(this.deadline - Date.now())) return { cancelled: 0 };
    const cancelled = this.running;
    const reason = new McpdError(
      'UNAVAILABLE',
      `${this.describeStop()}: the call did not finish within the shutdown grace period and was cancelled`,
    );
    this.cutoff.abort(reason);
    for (const abort of this.owned.values()) abort(reason);
    await this.idleWithin(settleMs);
    return { cancelled };
  }

  private idleWithin(ms: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        resolve(true);
      };
      const timer = cappedTimeout(() => {
        this.idleWaiters.delete(wake);
        resolve(false);
      }, ms);
      this.idleWaiters.add(wake);
    });
  }
}
