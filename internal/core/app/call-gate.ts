import { McpdError } from '../../shared/errors.js';
import { cappedTimeout } from '../../shared/timer-limit.js';
import { ChurnMap } from '../../shared/churn-map.js';

/**
 * Admission of calls for a graceful stop. Until `close`, calls run and are counted; after it, new ones
 * are refused with a clear error, and those in flight may finish until the grace period ends, when
 * they are cancelled (downstream too, through their signal).
 */
export class CallGate {
  private running = 0;
  /** When a stop began, the end of its grace period. */
  private deadline?: number;
  private readonly idleWaiters = new Set<() => void>();
  /** How to cancel each running call: the end of the grace period calls each. */
  private readonly owned = new ChurnMap<number, (reason: Error) => void>();
  private ownedSeq = 0;

  constructor(private readonly describeStop: () => string = () => 'the mcpd core is stopping') {}

  get inFlight(): number {
    return this.running;
  }

  get stopDeadline(): number | undefined {
    return this.deadline;
  }

  /** The error a call gets once a stop began, the same on every face: `what` names the call's method. */
  refusal(what: string): McpdError {
    return new McpdError(
      'UNAVAILABLE',
      `${this.describeStop()}: new calls are refused (${what}); retry once a core runs again (a gateway with autostart starts one)`,
    );
  }

  /**
   * Counts a call until `leave`; `abort` is how the end of a stop's grace period cancels it. Undefined
   * once a stop began: the call is refused (`refusal`).
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
    for (const abort of [...this.owned.values()]) abort(reason);
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
