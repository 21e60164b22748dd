import { ERROR_HISTORY_LIMIT } from '../../../contract/model/runtime.js';
import { CrashBreaker } from './breaker.js';
import type { PoolScope } from './pool-scope.js';

/** What a pool remembers of its failures: the recent errors, the restart count, the crash-loop breaker. */
export class PoolHealth {
  private restartCount = 0;
  private last?: { at: number; message: string };
  /** Errors noted so far: a success clears the last error only when none came after it began. */
  private noted = 0;
  /** What `mcpdctl status <server>` shows: the recent errors in full. */
  private readonly history: { at: number; message: string }[] = [];
  private readonly breaker: CrashBreaker;

  constructor(private readonly scope: PoolScope) {
    const rt = scope.deps.runtime;
    this.breaker = new CrashBreaker(rt.crashLoopThreshold, rt.crashLoopWindowSeconds * 1000);
  }

  /** Starts of instances that replace one that crashed or was stopped (cause 'restart'). */
  get restarts(): number {
    return this.restartCount;
  }

  get lastError(): string | undefined {
    return this.last?.message;
  }

  get lastErrorAt(): number | undefined {
    return this.last?.at;
  }

  countRestart(): void {
    this.restartCount++;
  }

  noteError(msg: string): void {
    this.noted++;
    this.last = { at: this.scope.now(), message: msg };
    this.history.push(this.last);
    if (this.history.length > ERROR_HISTORY_LIMIT) this.history.shift();
  }

  /** Notes an error unless it is already the last one (a failure several parts of the pool report). */
  noteErrorOnce(msg: string): void {
    if (this.last?.message !== msg) this.noteError(msg);
  }

  /** Where a start or a call begins, for `recovered`. */
  mark(): number {
    return this.noted;
  }

  /**
   * A start or call that began at `since` succeeded: the pool is healthy again, so status stops showing
   * an error noted before it (the history keeps it). An error noted meanwhile stays: it is newer news.
   */
  recovered(since: number): void {
    if (this.noted === since) this.last = undefined;
  }

  errorHistory(): { at: number; message: string }[] {
    return [...this.history];
  }

  /** Counts a crash; returns how many fell inside the window when that trips the breaker. */
  crashed(): number | undefined {
    const now = this.scope.now();
    this.breaker.record(now);
    if (!this.breaker.tripped(now)) return undefined;
    return this.breaker.recent(now);
  }

  /** Crashes still inside the breaker window (what the restart backoff grows with). */
  recentCrashes(): number {
    return this.breaker.recent(this.scope.now());
  }

  /** A resumed pool starts with a clean slate. */
  forgetCrashes(): void {
    this.breaker.reset();
  }
}
