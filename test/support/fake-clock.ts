import type { Clock } from '../../internal/desktop-host/clock.js';
import { abortReason } from '../../internal/desktop-host/clock.js';

interface Sleeper {
  at: number;
  resolve: () => void;
}

/** A clock that moves only when the test says so; sleepers wake in time order. */
export class FakeClock implements Clock {
  private t: number;
  private readonly sleepers: Sleeper[] = [];
  private onSleep: (() => void)[] = [];

  constructor(start = Date.UTC(2026, 1, 9, 12, 0, 0)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(abortReason(signal));
      const s: Sleeper = { at: this.t + ms, resolve };
      this.sleepers.push(s);
      signal.addEventListener(
        'abort',
        () => {
          const i = this.sleepers.indexOf(s);
          if (i >= 0) this.sleepers.splice(i, 1);
          reject(abortReason(signal));
        },
        { once: true },
      );
      const waiting = this.onSleep;
      this.onSleep = [];
      for (const w of waiting) w();
    });
  }

  /** Resolves once somebody sleeps on this clock (now, or as soon as it happens). */
  sleeping(): Promise<void> {
    return this.sleepers.length > 0 ? Promise.resolve() : new Promise((r) => this.onSleep.push(r));
  }

  pendingSleeps(): number {
    return this.sleepers.length;
  }

  /** Moves time forward and wakes every sleeper due by then. */
  advance(ms: number): void {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.at <= this.t);
    for (const s of due) {
      this.sleepers.splice(this.sleepers.indexOf(s), 1);
      s.resolve();
    }
  }

  /** Advances to the next sleeper's wake time. */
  wakeNext(): void {
    const next = Math.min(...this.sleepers.map((s) => s.at));
    this.advance(Math.max(0, next - this.t));
  }
}
