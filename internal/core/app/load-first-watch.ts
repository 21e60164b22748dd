/**
 * A watch whose first value must be the caller's real list, not whatever the index held before its
 * servers were listed: `ready` (loading the listing) settles before the inner watch is opened, so the
 * watcher's first snapshot is the loaded one and its etag is the list a `List…` call would return.
 * Ending the watch while it still loads ends it at once (a pending read resolves done).
 */
export class LoadFirstWatch<T> implements AsyncIterableIterator<T> {
  private inner: AsyncIterableIterator<T> | undefined;
  private opening: Promise<AsyncIterableIterator<T> | undefined> | undefined;
  private done = false;
  private pendingDone: ((r: IteratorResult<T>) => void) | undefined;

  constructor(
    private readonly ready: () => Promise<unknown>,
    private readonly open: () => AsyncIterableIterator<T>,
  ) {}

  async next(): Promise<IteratorResult<T>> {
    const inner = this.inner ?? (await this.opened());
    if (!inner) return { done: true, value: undefined };
    return inner.next();
  }

  return(): Promise<IteratorResult<T>> {
    this.done = true;
    // Ending the inner watch only marks it done (its return() settles at once); this watch is done already.
    void this.inner?.return?.();
    const p = this.pendingDone;
    this.pendingDone = undefined;
    p?.({ done: true, value: undefined });
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  /** Loads once, then opens the inner watch, unless the watch ended meanwhile. */
  private opened(): Promise<AsyncIterableIterator<T> | undefined> {
    this.opening ??= new Promise((resolve) => {
      this.pendingDone = () => resolve(undefined);
      // A failed load still opens the watch: the list without the failing server is the real list.
      void this.ready()
        .catch(() => undefined)
        .then(() => {
          this.pendingDone = undefined;
          if (this.done) return resolve(undefined);
          this.inner = this.open();
          resolve(this.inner);
        });
    });
    return this.opening;
  }
}
