import type { Clock, TimerHandle } from '../../internal/core/infra/scheduler/clock.js';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** Manual clock for deterministic scheduler tests: time moves only through advance(). */
export class FakeClock implements Clock {
  private t = 1_000_000;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: ++this.seq, at: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }

  pending(): number {
    return this.timers.length;
  }

  /** Runs every timer due within `ms`, in time order, letting promise chains settle after each. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await settle();
    for (;;) {
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
      await settle();
    }
    this.t = target;
    await settle();
  }
}

/** Lets queued promise callbacks (and their follow-ups) run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
