import { LatestWins } from '../domain/aggregator/newest-wins.js';
import { LoadFirstWatch } from './load-first-watch.js';

/**
 * One newest-wins channel per caller for a listing (tools, resources, prompts). A watch follows the
 * caller, not the profile it had when the watch started: after a reload moves the caller to another
 * profile, the next refresh hands its watchers that profile's snapshot.
 */
export class CallerViews<S extends { etag: string }> {
  private readonly views = new Map<string, LatestWins<S>>();

  /**
   * `current`: the caller's snapshot under the running store, read on every refresh. `load`: fills
   * the caller's listing (starting servers when needed); a watch waits for it before its first value.
   */
  constructor(
    private readonly current: (caller: string) => S,
    private readonly load?: (caller: string) => Promise<unknown>,
  ) {}

  /** The caller's current (loaded) snapshot first (unless `lastEtag` is it), then each change. */
  watch(caller: string, lastEtag?: string, signal?: AbortSignal): AsyncIterableIterator<S> {
    const load = this.load;
    if (!load) return this.open(caller, lastEtag, signal);
    return new LoadFirstWatch(
      () => load(caller),
      () => this.open(caller, lastEtag, signal),
    );
  }

  private open(caller: string, lastEtag?: string, signal?: AbortSignal): AsyncIterableIterator<S> {
    let v = this.views.get(caller);
    if (!v) {
      v = new LatestWins<S>();
      v.publish(this.current(caller));
      this.views.set(caller, v);
    }
    return v.subscribe(lastEtag === undefined ? undefined : (s) => s.etag === lastEtag, signal);
  }

  /**
   * Re-reads the snapshot of the callers `which` selects (all when omitted) and publishes it where the
   * etag moved. Views nobody watches any more are dropped here: the next watch starts afresh.
   */
  refresh(which?: (caller: string) => boolean): void {
    for (const [caller, v] of [...this.views]) {
      if (v.subscriberCount === 0) {
        v.close();
        this.views.delete(caller);
        continue;
      }
      if (which && !which(caller)) continue;
      const next = this.current(caller);
      if (v.current()?.etag !== next.etag) v.publish(next);
    }
  }

  /** Callers with an open watch. */
  watched(): string[] {
    return [...this.views].filter(([, v]) => v.subscriberCount > 0).map(([c]) => c);
  }

  get subscriberCount(): number {
    let n = 0;
    for (const v of this.views.values()) n += v.subscriberCount;
    return n;
  }

  /** Ends every watch (shutdown). */
  close(): void {
    for (const v of this.views.values()) v.close();
    this.views.clear();
  }
}
