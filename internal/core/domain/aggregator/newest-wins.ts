/**
 * Latest-wins delivery: each subscriber holds at most one pending wait and a version number, never a
 * queue. A slow consumer skips intermediate values but its next read is always the newest one.
 */
export class LatestWins<T> {
  private value: T | undefined;
  /** Increments on every publish; 0 = nothing published yet. */
  private version = 0;
  private closed = false;
  private readonly subs = new Set<Subscription<T>>();

  /** `onSubscribers`: told the new count whenever a subscriber comes or goes (watch-driven resources follow it). */
  constructor(private readonly onSubscribers?: (count: number) => void) {}

  publish(value: T): void {
    if (this.closed) return;
    this.value = value;
    this.version++;
    for (const s of this.subs) s.notify();
  }

  current(): T | undefined {
    return this.value;
  }

  get subscriberCount(): number {
    return this.subs.size;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Iterates over published values. The current value comes first unless `alreadySeen` says the
   * subscriber has it (e.g. its last etag matches); then each newer value, possibly skipping some.
   * Ends on `return()`, on `signal` abort, or when the channel is closed.
   */
  subscribe(alreadySeen?: (value: T) => boolean, signal?: AbortSignal): AsyncIterableIterator<T> {
    const upToDate = this.version > 0 && alreadySeen !== undefined && alreadySeen(this.value as T);
    const sub = new Subscription<T>(this, upToDate ? this.version : 0);
    if (this.closed || signal?.aborted) {
      sub.end();
      return sub;
    }
    this.subs.add(sub);
    this.onSubscribers?.(this.subs.size);
    if (signal) {
      const onAbort = (): void => sub.end();
      signal.addEventListener('abort', onAbort, { once: true });
      sub.onEnd = () => signal.removeEventListener('abort', onAbort);
    }
    return sub;
  }

  /** Ends every subscription; later publishes are ignored. */
  close(): void {
    this.closed = true;
    for (const s of [...this.subs]) s.end();
  }

  /** @internal */
  snapshotState(): { version: number; value: T | undefined } {
    return { version: this.version, value: this.value };
  }

  /** @internal */
  detach(sub: Subscription<T>): void {
    if (this.subs.delete(sub)) this.onSubscribers?.(this.subs.size);
  }
}

class Subscription<T> implements AsyncIterableIterator<T> {
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private done = false;
  /** Releases what ties the subscription to the outside (an abort listener). */
  onEnd: (() => void) | undefined;

  constructor(
    private readonly owner: LatestWins<T>,
    private seen: number,
  ) {}

  next(): Promise<IteratorResult<T>> {
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    const { version, value } = this.owner.snapshotState();
    if (version > this.seen) {
      this.seen = version;
      return Promise.resolve({ done: false, value: value as T });
    }
    if (this.waiter) {
      // A second concurrent read would need a queue of waiters; for-await never does this.
      return Promise.reject(new Error('LatestWins subscription: next() called while a previous next() is pending'));
    }
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  /** Called on publish: hands the newest value to a pending read, if any. */
  notify(): void {
    const w = this.waiter;
    if (!w) return;
    this.waiter = undefined;
    const { version, value } = this.owner.snapshotState();
    this.seen = version;
    w({ done: false, value: value as T });
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.owner.detach(this);
    this.onEnd?.();
    this.onEnd = undefined;
    const w = this.waiter;
    this.waiter = undefined;
    w?.({ done: true, value: undefined });
  }
}
