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
  /** Whether a cursor naming it was handed out: only then can anyone ask for it once superseded. */
  named?: boolean;
}

const DEFAULT_HISTORY_COUNT = 32;

/**
 * The latest snapshot plus recently superseded ones, by etag, so cursors keep paging the snapshot
 * they started on. Memory is bounded by `maxCount` whatever the retention. A superseded snapshot no
 * cursor names is dropped at once: a server whose list changes often, with nobody paging it, would
 * otherwise keep `maxCount` whole lists alive for the retention.
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
    const named = this.kept.get(snapshot.etag)?.named;
    if (prev && prev.etag !== snapshot.etag) {
      if (this.kept.get(prev.etag)?.named) this.kept.set(prev.etag, { snapshot: prev, supersededAt: t, named: true });
      else this.kept.delete(prev.etag);
    }
    // Re-inserting moves the etag to the end of the Map's order, which is the eviction order.
    this.kept.delete(snapshot.etag);
    this.kept.set(snapshot.etag, { snapshot, named });
    this.newest = snapshot;
    this.prune(t);
  }

  /** Records that a cursor naming this snapshot was handed out, so it outlives being superseded. */
  named(etag: string): void {
    const k = this.kept.get(etag);
    if (k) k.named = true;
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
