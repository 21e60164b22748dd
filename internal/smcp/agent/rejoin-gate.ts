/**
 * Requests made between a lost connection and the office re-join after it wait for that re-join: Socket.IO
 * would send them as soon as it reconnects, before the re-join, and the Server would not know the agent yet.
 */
export class RejoinGate {
  private pending?: { done: Promise<void>; settle: () => void };

  /** Whether a re-join is awaited. */
  get held(): boolean {
    return this.pending !== undefined;
  }

  /** From a lost connection that will be re-established: requests wait from now on (once, however often it is called). */
  hold(): void {
    if (this.pending) return;
    let settle = (): void => {};
    const done = new Promise<void>((r) => (settle = r));
    this.pending = { done, settle };
  }

  /** The re-join is over (done, failed, or the agent closed): waiting requests go on. */
  release(): void {
    this.pending?.settle();
    this.pending = undefined;
  }

  /** Waits, at most `timeoutMs`, for the re-join; false when the time ran out first. Never rejects. */
  async wait(timeoutMs: number): Promise<boolean> {
    const pending = this.pending?.done;
    if (!pending) return true;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    try {
      return await Promise.race([pending.then(() => true), expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
