/**
 * The slots parse workers run in: at most `size` at once, the rest wait in order. A slot is held until its
 * worker has exited (not merely answered), so the memory of all parses together stays within
 * size × --parse-memory-mb however many files arrive at once.
 */
export class ParsePool {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  /** Resolves with the slot's release (call it once, when the worker is gone). */
  async acquire(size: number): Promise<() => void> {
    while (this.active >= size) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }
}
