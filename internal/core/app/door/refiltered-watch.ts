import type { Subscription } from '../../../contract/control/control-areas.js';
import type { Passage } from './passage.js';

type Visibility = Pick<Passage, 'visibilityTag' | 'onVisibilityChange'>;

/**
 * A watch's snapshots as a caller may see them: each passed through `filter` (what interceptors hide left
 * out), its etag tagged with the door's visibility epoch, and the last one sent again — re-filtered, with
 * the new tag — when what is hidden changes though the snapshot did not (a reload of the rules), so a
 * Session forwards `list_changed` and the dashboard and SMCP agents see the new list.
 */
export class RefilteredWatch<T extends { etag: string }> implements AsyncIterableIterator<T> {
  private last: T | undefined;
  private dirty = false;
  private done = false;
  private pulling: Promise<IteratorResult<T>> | undefined;
  private wake: (() => void) | undefined;
  private readonly off: () => void;

  constructor(
    private readonly sub: Subscription<T>,
    private readonly filter: (s: T) => T,
    private readonly door: Visibility,
  ) {
    this.off = door.onVisibilityChange(() => {
      if (this.last === undefined) return;
      this.dirty = true;
      this.wake?.();
    });
  }

  async next(): Promise<IteratorResult<T>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      if (this.dirty && this.last !== undefined) {
        this.dirty = false;
        return { done: false, value: this.seen(this.last) };
      }
      // One pull of the watch stays pending across a wake-up: a snapshot is never lost or asked for twice.
      const pulled = (this.pulling ??= this.sub.next());
      const woken = new Promise<'woken'>((resolve) => (this.wake = () => resolve('woken')));
      const r = await Promise.race([pulled, woken]);
      this.wake = undefined;
      if (r === 'woken') continue;
      this.pulling = undefined;
      if (r.done) {
        this.finish();
        return r;
      }
      this.last = r.value;
      this.dirty = false;
      return { done: false, value: this.seen(r.value) };
    }
  }

  return(value?: unknown): Promise<IteratorResult<T>> {
    this.finish();
    return this.sub.return ? this.sub.return(value) : Promise.resolve({ done: true, value: undefined });
  }

  throw(e?: unknown): Promise<IteratorResult<T>> {
    this.finish();
    return this.sub.throw ? this.sub.throw(e) : Promise.reject(e as Error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private seen(raw: T): T {
    return { ...this.filter(raw), etag: raw.etag + this.door.visibilityTag() };
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.off();
    // A pull left pending ends with the watch; nobody reads its outcome any more.
    this.pulling?.catch(() => {});
    this.wake?.();
  }
}
