import { LatestWins } from './newest-wins.js';
import { page } from './paginate.js';
import type { Page } from './paginate.js';
import { SnapshotHistory } from './snapshot-history.js';

export interface ListingIndexOptions<S> {
  /** Binds cursors to this listing ("tools", "prompts" …). */
  kind: string;
  /** The snapshot served before the first real build (usually an empty one). */
  initial: S;
  retentionSeconds: number;
  maxSnapshots?: number;
  now?: () => number;
}

/**
 * The generic half of a per-profile index: snapshot history for cursors, paging, and newest-wins
 * watchers. Item type and snapshot building are the caller's (tools, resources, prompts …).
 */
export class ListingIndex<S extends { etag: string }, T> {
  private readonly history: SnapshotHistory<S>;
  private readonly channel = new LatestWins<S>();
  private readonly kind: string;
  private latest: S;
  /** First pages of the latest snapshot by page size: a listing is read far more often than it changes. */
  private firstPages = new Map<number, Page<T>>();

  constructor(
    private readonly items: (snapshot: S) => readonly T[],
    opts: ListingIndexOptions<S>,
  ) {
    this.kind = opts.kind;
    this.history = new SnapshotHistory<S>({ retentionSeconds: opts.retentionSeconds, maxCount: opts.maxSnapshots, now: opts.now });
    this.latest = opts.initial;
    this.history.push(opts.initial);
    this.channel.publish(opts.initial);
  }

  current(): S {
    return this.latest;
  }

  /**
   * Makes `next` current. Watchers hear of it only when the etag changed, so callers are never told
   * about a change they cannot see; a same-etag snapshot still replaces the current one silently
   * (its routing data, e.g. fingerprints, may be newer). Returns whether the etag changed.
   */
  offer(next: S): boolean {
    const changed = next.etag !== this.latest.etag;
    this.latest = next;
    this.firstPages = new Map();
    this.history.push(next);
    if (changed) this.channel.publish(next);
    return changed;
  }

  /** A kept snapshot by etag, e.g. the one a page came from (for its collisions or problems). */
  snapshotAt(etag: string): S | undefined {
    return this.history.get(etag);
  }

  /** One page; the returned page is shared, never to be modified. */
  list(cursor: string | undefined, pageSize: number): Page<T> {
    if (cursor) return page(this.history, cursor, pageSize, this.items, this.kind);
    let first = this.firstPages.get(pageSize);
    if (!first) {
      first = page(this.history, cursor, pageSize, this.items, this.kind);
      if (this.firstPages.size >= 8) this.firstPages.clear();
      this.firstPages.set(pageSize, first);
    }
    return first;
  }

  /** Full snapshots: the current one at once unless `lastEtag` matches it, then each change (newest-wins). */
  watch(lastEtag?: string, signal?: AbortSignal): AsyncIterableIterator<S> {
    return this.channel.subscribe(lastEtag === undefined ? undefined : (s) => s.etag === lastEtag, signal);
  }

  get watcherCount(): number {
    return this.channel.subscriberCount;
  }

  close(): void {
    this.channel.close();
  }
}
