import type { JsonObject } from '../../shared/json.js';

/**
 * One subscriber's stream of `notifications/resources/updated` params for one URI. Latest-wins:
 * a slow reader skips repeats (each update only says "read it again") but never misses the newest.
 */
export class UpdateSink implements AsyncIterableIterator<JsonObject> {
  private pending: JsonObject | undefined;
  private waiter: ((r: IteratorResult<JsonObject>) => void) | undefined;
  private done = false;

  constructor(private readonly onEnd: () => void) {}

  get ended(): boolean {
    return this.done;
  }

  push(value: JsonObject): void {
    if (this.done) return;
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w({ done: false, value });
    } else this.pending = value;
  }

  next(): Promise<IteratorResult<JsonObject>> {
    if (this.pending !== undefined) {
      const value = this.pending;
      this.pending = undefined;
      return Promise.resolve({ done: false, value });
    }
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    if (this.waiter) return Promise.reject(new Error('UpdateSink: next() called while a previous next() is pending'));
    return new Promise((resolve) => (this.waiter = resolve));
  }

  return(): Promise<IteratorResult<JsonObject>> {
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<JsonObject> {
    return this;
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.pending = undefined;
    const w = this.waiter;
    this.waiter = undefined;
    w?.({ done: true, value: undefined });
    this.onEnd();
  }
}
