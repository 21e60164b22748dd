import { needsSignIn } from '../../../contract/model/sign-in.js';
interface Failure {
  at: number;
  message: string;
}

export interface ListingCacheOptions<L> {
  /** What is listed, for messages ("resources", "prompts"). */
  what: string;
  /** Lists one spec's items (may start its server once). */
  fetch: (fingerprint: string) => Promise<L>;
  /** After every load attempt, successful or not: rebuild the indexes that use the spec. */
  settled: (fingerprint: string) => void;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  retryFailedMs?: number;
  /** The spec's cached listing ran out of its TTL: a listing (loads with `stale`) lists it again. */
  stale?: (fingerprint: string) => boolean;
  /** Errors that are not the server's failure (its pool was removed by a reload): not recorded, not logged. */
  notAFailure?: (e: unknown) => boolean;
  now?: () => number;
}

/**
 * The per-spec metadata cache behind resource and prompt listings: filled on first need, one load
 * per spec at a time, reloaded on the server's list_changed. A spec whose listing failed is left
 * out (and reported) for a while instead of stalling every listing.
 */
export class ListingCache<L> {
  private readonly cache = new Map<string, L>();
  private readonly loading = new Map<string, Promise<void>>();
  /** Specs told of a change while a load was in flight: that load may be stale, load again after it. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, Failure>();
  private readonly now: () => number;

  constructor(private readonly o: ListingCacheOptions<L>) {
    this.now = o.now ?? Date.now;
  }

  get(fingerprint: string): L | undefined {
    return this.cache.get(fingerprint);
  }

  failure(fingerprint: string): string | undefined {
    return this.failures.get(fingerprint)?.message;
  }

  /** Loads the specs not cached yet (skipping recent failures unless asked), waiting for loads in flight. */
  async ensure(fingerprints: readonly string[], opts: { retryFailed?: boolean } = {}): Promise<void> {
    await Promise.all(this.loads(fingerprints, opts).values());
  }

  /**
   * ensure without the wait: the load of each spec not cached yet — or, with `stale`, cached past its
   * TTL (the stale listing stays served until the new one lands) — by fingerprint (they never reject).
   */
  loads(fingerprints: readonly string[], opts: { retryFailed?: boolean; stale?: boolean } = {}): Map<string, Promise<void>> {
    const needed = (fp: string) => !this.cache.has(fp) || (opts.stale === true && this.o.stale?.(fp) === true);
    const missing = fingerprints.filter((fp) => needed(fp) && (opts.retryFailed || !this.recentlyFailed(fp)));
    return new Map(missing.map((fp) => [fp, this.load(fp)]));
  }

  /** A load of the spec is in flight. */
  isLoading(fingerprint: string): boolean {
    return this.loading.has(fingerprint);
  }

  /** The server said its list changed. */
  invalidate(fingerprint: string): Promise<void> {
    if (this.loading.has(fingerprint)) this.dirty.add(fingerprint);
    return this.load(fingerprint);
  }

  /** Forgets specs no longer used by any profile. */
  retain(fingerprints: ReadonlySet<string>): void {
    for (const fp of [...this.cache.keys(), ...this.failures.keys()]) {
      if (fingerprints.has(fp)) continue;
      this.cache.delete(fp);
      this.failures.delete(fp);
    }
  }

  private recentlyFailed(fp: string): boolean {
    const f = this.failures.get(fp);
    return f !== undefined && this.now() - f.at < (this.o.retryFailedMs ?? 10_000);
  }

  private load(fp: string): Promise<void> {
    const inflight = this.loading.get(fp);
    if (inflight) return inflight;
    const p = this.o
      .fetch(fp)
      .then(
        (listing) => {
          this.cache.set(fp, listing);
          this.failures.delete(fp);
        },
        (e: unknown) => {
          if (this.o.notAFailure?.(e)) return;
          const message = e instanceof Error ? e.message : String(e);
          // A sign-in is fixed from outside at any moment: the next listing asks again (at = -Infinity).
          this.failures.set(fp, { at: needsSignIn(e) ? -Infinity : this.now(), message });
          this.o.log(`${this.o.what} listing failed; the server is left out of ${this.o.what} listings until it answers`, {
            fingerprint: fp,
            error: message,
          });
        },
      )
      .finally(() => {
        this.loading.delete(fp);
        this.o.settled(fp);
        // Fire-and-forget: load() never rejects: a failed listing is recorded and logged.
        if (this.dirty.delete(fp)) void this.load(fp);
      });
    this.loading.set(fp, p);
    return p;
  }
}
