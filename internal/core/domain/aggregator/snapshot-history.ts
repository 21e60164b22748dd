export interface SnapshotHistoryOptions {
  /** How long a superseded snapshot stays addressable (counted from when it was superseded). */
  retentionSeconds: number;
  /** Upper bound on kept snapshots, the latest included. */
  maxCount?: number;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
}

interface Kept<T> {
  snapshot: T;
  /** When a newer snapshot replaced it; undefined for the latest. */
  supersededAt?: number;
}

const DEFAULT_HISTORY_COUNT = 32;

/**
 * The latest snapshot plus recently superseded ones, by etag, so cursors keep paging the snapshot
 * they started on. Memory is bounded by `maxCount` whatever the retention.
 */
export class SnapshotHistory<T extends { etag: string }> {
  private readonly kept = new Map<string, Kept<T>>();
  private newest: T | undefined;
  private readonly retentionMs: number;
  private readonly maxCount: number;
  private readonly now: () => number;

  constructor(opts: SnapshotHistoryOptions) {
    if (!(opts.retentionSeconds >= 0)) throw new RangeError(`retentionSeconds must be ≥ 0, got ${opts.retentionSeconds}`);
    const maxCount = opts.maxCount ?? DEFAULT_HISTORY_COUNT;
    if (!Number.isInteger(maxCount) || maxCount < 1) throw new RangeError(`maxCount must be an integer ≥ 1, got ${maxCount}`);
    this.retentionMs = opts.retentionSeconds * 1000;
    this.maxCount = maxCount;
    this.now = opts.now ?? Date.now;
  }

  latest(): T | undefined {
    return this.newest;
  }

  /**
   * Makes `snapshot` the latest. A snapshot with the latest etag replaces it in place (same content,
   * possibly fresher routing data); one with an older etag comes back to life as the latest.
   */
  push(snapshot: T): void {
    const t = this.now();
    const prev = this.newest;
    if (prev && prev.etag !== snapshot.etag) this.kept.set(prev.etag, { snapshot: prev, supersededAt: t });
    // Re-inserting moves the etag to the end of the Map's order, which is the eviction order.
    this.kept.delete(snapshot.etag);
    this.kept.set(snapshot.etag, { snapshot });
    this.newest = snapshot;
    this.prune(t);
  }

  /** The snapshot with this etag, if it is the latest or was superseded less than the retention ago. */
  get(etag: string): T | undefined {
    this.prune(this.now());
    return this.kept.get(etag)?.snapshot;
  }

  get size(): number {
    this.prune(this.now());
    return this.kept.size;
  }

  private prune(t: number): void {
    for (const [etag, k] of this.kept) {
      if (k.supersededAt !== undefined && t - k.supersededAt >= this.retentionMs) this.kept.delete(etag);
    }
    // Oldest first; the latest is always last in insertion order, so it is never evicted here.
    for (const etag of this.kept.keys()) {
      if (this.kept.size <= this.maxCount) break;
      this.kept.delete(etag);
    }
  }
}
