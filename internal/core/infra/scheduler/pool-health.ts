import { ERROR_HISTORY_LIMIT } from '../../../contract/model/runtime.js';
import { CrashBreaker } from './breaker.js';
import type { PoolScope } from './pool-scope.js';

/** What a pool remembers of its failures: the recent errors, the restart count, the crash-loop breaker. */
export class PoolHealth {
  private restartCount = 0;
  private last?: { at: number; message: string };
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
    this.last = { at: this.scope.now(), message: msg };
    this.history.push(this.last);
    if (this.history.length > ERROR_HISTORY_LIMIT) this.history.shift();
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
