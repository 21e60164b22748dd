import { abortReason } from './clock.js';

/**
 * The ui-control lane: one click / typeText / hotkey at a time on the whole host, so two clients never
 * interleave input. A second action waits its turn (FIFO); while waiting it can still be aborted or time out.
 */
export class Lane {
  private tail: Promise<void> = Promise.resolve();
  private held = 0;
  private queued = 0;

  async run<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const before = this.tail;
    this.tail = before.then(() => mine);
    this.queued++;
    try {
      await Promise.race([
        before,
        new Promise<never>((_, reject) => {
          if (signal.aborted) reject(abortReason(signal));
          signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
        }),
      ]).finally(() => this.queued--);
      this.held++;
      try {
        return await fn();
      } finally {
        this.held--;
      }
    } finally {
      // Released even when we gave up waiting: our successor then waits on our predecessor instead.
      before.then(release, release);
    }
  }

  busy(): boolean {
    return this.held > 0;
  }

  /** Actions waiting for their turn. */
  waiting(): number {
    return this.queued;
  }
}
