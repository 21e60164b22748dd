/**
 * The slots files are read and parsed in: at most `size` at once, the rest wait in order. A slot is taken
 * before the file is read and held until its worker has exited (not merely answered), so the memory of all
 * reads and parses together stays within size × (--parse-memory-mb + a file's bytes) however many files
 * arrive at once.
 */
export class ParsePool {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  /** Resolves with the slot's release (call it when the file's bytes and its worker are gone; later calls do nothing). */
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
