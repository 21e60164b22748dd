import { specFingerprint } from '../../contract/model/fingerprint.js';
import type { JsonObject } from '../../shared/json.js';
import type { Profile, ProfileStore } from '../../contract/model/profile.js';
import { ListingCache } from '../domain/aggregator/listing-cache.js';
import { earliestFresh, PoolGoneError, type CachedList } from '../infra/scheduler/index.js';
import type { AreaDeps } from './area-deps.js';

/** The downstream lists behind each area's listing (their caching hints say when it is stale). */
const LISTS: Record<'resources' | 'prompts', readonly CachedList[]> = {
  resources: ['resources/list', 'resources/templates/list'],
  prompts: ['prompts/list'],
};

/** What a per-profile index (resources, prompts) offers the listings plumbing. */
export interface AreaIndex<L> {
  update(byServer: ReadonlyMap<string, L>): boolean;
  reconfigure(profile: Profile, fingerprintOf: (server: string) => string): boolean;
  close(): void;
}

export interface AreaListingsOptions<L, I extends AreaIndex<L>> {
  /** "resources" or "prompts": the capability a server must declare, and the word in messages. */
  capability: 'resources' | 'prompts';
  /** What a server without the capability lists. */
  empty: L;
  /** Lists one server's items (all downstream pages). */
  list: (fingerprint: string, server: string) => Promise<L>;
  /** The server's items as an earlier core saved them, while no instance has listed them again (starts nothing). */
  restore?: (fingerprint: string) => L | undefined;
  /** Keeps what `list` returned with the spec's saved metadata, so the next core lists it without a server. */
  keep?: (fingerprint: string, listing: L) => void;
  makeIndex: (profile: Profile, fingerprintOf: (server: string) => string) => I;
  /** A profile's index got a new etag (per-caller watches re-read it). */
  changed?: (profileName: string) => void;
  /** What of a server's listing callers may see (pinned items whose description changed are withheld). */
  admit?: (server: string, listing: L) => L;
}

/**
 * Per-profile indexes fed from a per-spec metadata cache, shared by the resource and prompt
 * services. Follows the running store lazily (and on `applyStore`), so a reload re-shapes the
 * indexes without anything else having to tell it.
 */
export class AreaListings<L, I extends AreaIndex<L>> {
  private readonly indexes = new Map<string, I>();
  private store: ProfileStore | undefined;
  private readonly cache: ListingCache<L>;

  constructor(
    private readonly deps: AreaDeps,
    private readonly o: AreaListingsOptions<L, I>,
  ) {
    this.cache = new ListingCache<L>({
      what: o.capability,
      fetch: (fp) => this.fetch(fp),
      settled: (fp) => this.refreshUsing(fp),
      log: (msg, fields) => deps.log('warning', msg, fields),
      // A reload removed the spec's pool meanwhile (as the tool cache treats it): the spec may come back.
      notAFailure: (e) => e instanceof PoolGoneError,
      stale: (fp) => LISTS[o.capability].some((m) => deps.pools.listStale?.(fp, m) === true),
    });
    // Saved lists answered until an instance ran; now one does, and it lists them again (only those in use).
    deps.pools.onListsToVerify?.((fp) => {
      if (this.cache.get(fp) !== undefined || this.cache.isLoading(fp)) this.invalidate(fp);
    });
  }

  index(profileName: string): I {
    this.sync();
    const idx = this.indexes.get(profileName);
    if (!idx) throw new Error(`no ${this.o.capability} index for profile "${profileName}"`);
    return idx;
  }

  /** Every enabled server of the profile listed once (servers known to fail are skipped unless retrying). */
  async ensureLoaded(profile: Profile, opts: { retryFailed?: boolean } = {}): Promise<void> {
    this.sync();
    await this.cache.ensure(
      enabled(profile).map((s) => specFingerprint(s)),
      opts,
    );
  }

  /**
   * ensureLoaded for a listing: waits at most runtime.yaml listingBudgetSeconds, then the listing
   * answers with what is ready; servers still starting join the index (list_changed) when they answer.
   * Returns the names of those servers (the first page's `_meta["mcpd/pending"]`).
   */
  async loadedForListing(profile: Profile): Promise<string[]> {
    this.sync();
    const servers = enabled(profile);
    // A listing also lists again what went stale (a server's TTL ran out); routing a request never does.
    const loads = this.cache.loads(
      servers.map((s) => specFingerprint(s)),
      { stale: true },
    );
    await this.deps.listingBudget.wait(loads);
    return servers.filter((s) => loads.has(specFingerprint(s)) && this.cache.isLoading(specFingerprint(s))).map((s) => s.name);
  }

  /**
   * How long the profile's listing stays fresh: the earliest TTL of the downstream lists it draws on
   * (undefined when none has one), so a caller's cache never outlives a server's.
   */
  freshForMs(profile: Profile): number | undefined {
    const fps = enabled(profile).map((s) => specFingerprint(s));
    return earliestFresh(fps.flatMap((fp) => LISTS[this.o.capability].map((m) => this.deps.pools.listFreshForMs?.(fp, m))));
  }

  /** `<server>: <why>` for servers of the profile whose listing failed. */
  failuresFor(profile: Profile): string[] {
    return enabled(profile).flatMap((s) => {
      const f = this.cache.failure(specFingerprint(s));
      return f ? [`${s.name}: ${f}`] : [];
    });
  }

  /** A downstream list_changed for this spec. */
  invalidate(fingerprint: string): void {
    // Fire-and-forget: the listing cache's loads never reject: a failed listing is recorded and logged.
    void this.cache.invalidate(fingerprint);
  }

  /**
   * A reload for a service that also serves watches: rebuild the indexes, move watchers whose caller
   * changed profile, and fill the listings those watchers now need.
   */
  applyStoreFor(views: { refresh(): void; watched(): string[] }): void {
    this.applyStore();
    views.refresh();
    // Fire-and-forget: the listing cache's loads never reject: a failed listing is recorded and logged.
    for (const caller of views.watched()) void this.ensureLoaded(this.deps.profileOf(caller));
  }

  /** Adopts the running store: new profiles get an index, changed ones are rebuilt, gone ones closed. */
  applyStore(): void {
    const store = this.deps.store.current;
    this.store = store;
    for (const [name, idx] of this.indexes) {
      if (store.profiles.has(name)) continue;
      idx.close();
      this.indexes.delete(name);
    }
    const used = new Set<string>();
    for (const profile of store.profiles.values()) {
      for (const s of profile.servers) used.add(specFingerprint(s));
      const fpOf = fingerprintLookup(profile);
      const existing = this.indexes.get(profile.name);
      if (!existing) this.indexes.set(profile.name, this.o.makeIndex(profile, fpOf));
      const reshaped = !existing || existing.reconfigure(profile, fpOf);
      if (!this.refresh(profile) && reshaped) this.o.changed?.(profile.name);
    }
    this.cache.retain(used);
  }

  private sync(): void {
    if (this.store !== this.deps.store.current) this.applyStore();
  }

  private async fetch(fp: string): Promise<L> {
    const server = this.serverName(fp);
    let caps = this.deps.pools.capabilities(fp);
    if (caps === undefined) {
      // Capabilities come with the first start; the tool listing is that start (shared, single-flight).
      // A server without tools fails that listing but has started and told its capabilities all the same.
      const toolsError = await this.deps.pools.tools(fp).then(
        () => undefined,
        (e: unknown) => e,
      );
      caps = this.deps.pools.capabilities(fp);
      if (caps === undefined)
        throw toolsError instanceof Error ? toolsError : new Error(`server ${server} did not start, so its capabilities are unknown`);
    }
    if (!declares(caps, this.o.capability)) return this.o.empty;
    const saved = this.o.restore?.(fp);
    if (saved !== undefined) return saved;
    const listing = await this.o.list(fp, server);
    this.o.keep?.(fp, listing);
    return listing;
  }

  /**
   * The spec's listing as the listings hold it — from disk while no instance ran, else listed (which
   * may start the server, cause `metadata`); undefined when it cannot be listed.
   */
  async known(fp: string): Promise<L | undefined> {
    await this.cache.ensure([fp]);
    return this.cache.get(fp);
  }

  private serverName(fp: string): string {
    for (const p of this.deps.store.current.profiles.values()) {
      const s = p.servers.find((x) => specFingerprint(x) === fp);
      if (s) return s.name;
    }
    return fp.slice(0, 12);
  }

  /** Feeds every profile's index again (an approval changed what is admitted). */
  refreshAll(): void {
    this.sync();
    for (const profile of this.deps.store.current.profiles.values()) this.refresh(profile);
  }

  private refreshUsing(fp: string): void {
    for (const profile of this.deps.store.current.profiles.values()) {
      if (enabled(profile).some((s) => specFingerprint(s) === fp)) this.refresh(profile);
    }
  }

  /** Feeds the profile's index from the cache; true when its etag changed (and `changed` was told). */
  private refresh(profile: Profile): boolean {
    const idx = this.indexes.get(profile.name);
    if (!idx) return false;
    const byServer = new Map<string, L>();
    for (const s of enabled(profile)) {
      const l = this.cache.get(specFingerprint(s));
      if (l !== undefined) byServer.set(s.name, this.o.admit ? this.o.admit(s.name, l) : l);
    }
    if (!idx.update(byServer)) return false;
    this.o.changed?.(profile.name);
    return true;
  }
}

function declares(caps: JsonObject | undefined, capability: string): boolean {
  const c = caps?.[capability];
  return c !== undefined && c !== null && typeof c === 'object';
}

function enabled(profile: Profile) {
  return profile.servers.filter((s) => !s.disabled);
}

function fingerprintLookup(profile: Profile): (server: string) => string {
  const m = new Map(profile.servers.map((s) => [s.name, specFingerprint(s)]));
  return (server) => m.get(server) ?? '';
}
