import type { DownstreamTool, ToolSnapshot } from '../../contract/model/tool.js';
import { DEFAULT_RUNTIME, type Profile, type ProfileStore } from '../../contract/model/profile.js';
import { specFingerprint } from '../../contract/model/fingerprint.js';
import { ProfileIndex } from '../domain/aggregator/tool-index.js';
import { definitionHash } from '../domain/aggregator/hash.js';
import { earliestFresh, PoolGoneError, type CachedList } from '../infra/scheduler/index.js';
import { ListingBudget } from './listing-budget.js';
import { needsSignIn } from '../../contract/model/sign-in.js';
import { toolViews } from './caller-naming.js';
import type { ToolPins } from './tool-pins.js';
import type { McpdError } from '../../shared/errors.js';

/** What the tool service needs from the pools: the per-spec metadata cache. */
export interface ToolSource {
  tools(fingerprint: string, opts?: { signal?: AbortSignal }): Promise<DownstreamTool[]>;
  /** Tools already known (e.g. restored from disk) without starting anything. */
  cachedTools?(fingerprint: string): DownstreamTool[] | undefined;
  /** The spec's cached list ran out of its TTL (a 2026-07-28 server's caching hints): a listing lists it again. */
  listStale?(fingerprint: string, method: CachedList): boolean;
  /** How long the spec's cached list stays fresh by its TTL (0: stale); undefined when it has none. */
  listFreshForMs?(fingerprint: string, method: CachedList): number | undefined;
}

interface Failure {
  at: number;
  message: string;
}

const RETRY_FAILED_LISTING_MS = 10_000;

/**
 * One ProfileIndex per view — a profile, or a profile as a caller with its own reserve names it
 * (caller-naming.ts) — fed from the per-spec tool cache. Methods taking a profile name take a view key. Listing never waits on a server
 * that is known to be failing; such servers are left out and reported in status.
 */
export class ToolService {
  private readonly indexes = new Map<string, ProfileIndex>();
  private readonly cache = new Map<string, readonly DownstreamTool[]>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, Failure>();
  private profiles = new Map<string, Profile>();
  private readonly changeListeners: ((profile: string, snap: ToolSnapshot) => void)[] = [];
  /** Tool definitions pinned on first sight (tool-pins.ts); absent = nothing is pinned (tests without a state dir). */
  private pins?: ToolPins;

  constructor(
    private readonly source: ToolSource,
    private readonly retentionSeconds: number,
    private readonly log: (msg: string, fields?: Record<string, unknown>) => void,
    /** Shared with the other areas' listings (AreaDeps.listingBudget). */
    readonly listingBudget = new ListingBudget(() => DEFAULT_RUNTIME.listingBudgetSeconds * 1000),
  ) {}

  /** Adopts a (re)loaded store: new views get an index, changed ones are reconfigured, gone ones closed. */
  applyStore(store: ProfileStore): void {
    this.profiles = toolViews(store);
    for (const [key, idx] of this.indexes) {
      if (!this.profiles.has(key)) {
        idx.close();
        this.indexes.delete(key);
      }
    }
    for (const [key, profile] of this.profiles) {
      const fpOf = fingerprintLookup(profile);
      const existing = this.indexes.get(key);
      if (existing) {
        if (existing.reconfigure(profile, fpOf)) this.emit(key);
      } else {
        this.indexes.set(key, new ProfileIndex({ profile, fingerprintOf: fpOf, retentionSeconds: this.retentionSeconds }));
      }
      // A new view may use only specs whose tools are already cached: nothing will load for it,
      // so it is fed from the cache now, like a changed one (else its callers list no tools).
      this.refresh(key);
    }
  }

  /** Pins every server's tools from now on; the indexes are rebuilt through them. */
  usePins(pins: ToolPins): void {
    this.pins = pins;
    for (const key of this.profiles.keys()) this.refresh(key);
  }

  /** A server's pins changed (an approval): its listings are rebuilt, and callers whose list changed are told. */
  pinsChanged(server: string): void {
    for (const [key, profile] of this.profiles) if (profile.servers.some((s) => s.name === server)) this.refresh(key);
  }

  /** Why a call to `name` is refused when it names a tool withheld by its pins (changed since approved). */
  withheldRefusal(profileName: string, name: string): McpdError | undefined {
    const profile = this.profiles.get(profileName);
    if (!profile || !this.pins) return undefined;
    for (const s of profile.servers) {
      const prefix = `${s.name}__`;
      const refusal = this.pins.refusal(s.name, name.startsWith(prefix) ? name.slice(prefix.length) : name);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** The profile behind a view key (for a caller's own view: with that caller's reserve). */
  profile(key: string): Profile | undefined {
    return this.profiles.get(key);
  }

  index(profile: string): ProfileIndex {
    const idx = this.indexes.get(profile);
    if (!idx) throw new Error(`no index for profile "${profile}"`);
    return idx;
  }

  onChange(cb: (profile: string, snap: ToolSnapshot) => void): void {
    this.changeListeners.push(cb);
  }

  /**
   * Makes sure every enabled server of the profile has its tools in the cache (starting servers once).
   * Returns the names of the servers it had to wait for (none when everything was cached).
   */
  async ensureLoaded(profileName: string, opts: { retryFailed?: boolean } = {}): Promise<string[]> {
    const profile = this.profiles.get(profileName);
    if (!profile) return [];
    const loads = this.missingLoads(profile, opts);
    if (loads.size === 0) return [];
    await Promise.all(loads.values());
    return profile.servers.filter((s) => !s.disabled && loads.has(specFingerprint(s))).map((s) => s.name);
  }

  /**
   * ensureLoaded, waiting at most the listing budget: a listing answers with what is ready instead of waiting
   * on a server that never finishes starting. `pending` names the servers still loading then; they
   * keep loading, and their tools join the index (a list change, so list_changed) when they arrive.
   */
  async loadWithin(profileName: string, opts: { retryFailed?: boolean } = {}): Promise<{ waited: string[]; pending: string[] }> {
    const profile = this.profiles.get(profileName);
    if (!profile) return { waited: [], pending: [] };
    // A listing also lists again what went stale (a server's TTL ran out); a call's lookup never does.
    const loads = this.missingLoads(profile, { stale: true, ...opts });
    if (loads.size === 0) return { waited: [], pending: [] };
    await this.listingBudget.wait(loads);
    const loaded = profile.servers.filter((s) => !s.disabled && loads.has(specFingerprint(s)));
    const pending = loaded.filter((s) => this.loading.has(specFingerprint(s))).map((s) => s.name);
    const waited = loaded.filter((s) => !this.loading.has(specFingerprint(s))).map((s) => s.name);
    return { waited, pending };
  }

  /** The profile's servers whose tools are being listed right now (still starting, or slow to list). */
  loadingServers(profileName: string): string[] {
    const profile = this.profiles.get(profileName);
    return (profile?.servers ?? []).filter((s) => !s.disabled && this.loading.has(specFingerprint(s))).map((s) => s.name);
  }

  /**
   * How long the view's tool list stays fresh: the earliest TTL of the enabled servers' cached lists it
   * draws on (undefined when none has one), so a caller's cache never outlives a server's.
   */
  freshForMs(profileName: string): number | undefined {
    const profile = this.profiles.get(profileName);
    if (!profile) return undefined;
    const cached = enabledFingerprints(profile).filter((fp) => this.cache.has(fp));
    return earliestFresh(cached.map((fp) => this.source.listFreshForMs?.(fp, 'tools/list')));
  }

  /**
   * The profile's servers whose tools the index does not hold yet and will: being listed, or a new spec
   * not listed so far (a reload publishes the index before its listing starts). Failed and left-out ones
   * are not waited for.
   */
  unlistedServers(profileName: string): string[] {
    const profile = this.profiles.get(profileName);
    return (profile?.servers ?? [])
      .filter((s) => {
        if (s.disabled || s.unavailable) return false;
        const fp = specFingerprint(s);
        return this.loading.has(fp) || (!this.cache.has(fp) && !this.failures.has(fp));
      })
      .map((s) => s.name);
  }

  /**
   * The loads of the profile's servers whose tools are not cached — or, with `stale`, cached past their
   * TTL — by fingerprint; recent failures are skipped unless retrying.
   */
  private missingLoads(profile: Profile, opts: { retryFailed?: boolean; stale?: boolean }): Map<string, Promise<void>> {
    const needed = (fp: string) => !this.cache.has(fp) || (opts.stale === true && this.source.listStale?.(fp, 'tools/list') === true);
    const missing = enabledFingerprints(profile).filter((fp) => needed(fp) && (opts.retryFailed || !this.recentlyFailed(fp)));
    return new Map(missing.map((fp) => [fp, this.load(fp)]));
  }

  /**
   * Takes every list the pools already know (restored from the state directory) and builds the
   * indexes now, so the first tools/list after a restart only pages a ready snapshot.
   */
  prime(): void {
    const touched = new Set<string>();
    for (const [key, profile] of this.profiles) {
      for (const fp of enabledFingerprints(profile)) {
        const tools = this.cache.has(fp) ? this.cache.get(fp) : this.source.cachedTools?.(fp);
        if (!tools) continue;
        this.cache.set(fp, tools);
        touched.add(key);
      }
    }
    for (const name of touched) this.refresh(name);
  }

  /** A downstream list_changed (or a restart) may have changed a spec's tools. */
  async invalidate(fingerprint: string): Promise<void> {
    await this.load(fingerprint);
  }

  /** Servers of the profile whose last listing failed, with the full error. */
  failureList(profileName: string): { server: string; error: string }[] {
    const profile = this.profiles.get(profileName);
    if (!profile) return [];
    return profile.servers.flatMap((s) => {
      if (s.unavailable) return [{ server: s.name, error: `left out: ${s.unavailable}` }];
      const f = s.disabled ? undefined : this.failures.get(specFingerprint(s));
      return f ? [{ server: s.name, error: f.message }] : [];
    });
  }

  failuresFor(profileName: string): string[] {
    const profile = this.profiles.get(profileName);
    if (!profile) return [];
    return profile.servers.flatMap((s) => {
      if (s.unavailable) return [`${s.name}: left out: ${s.unavailable}`];
      const f = this.failures.get(specFingerprint(s));
      return f ? [`${s.name}: ${f.message}`] : [];
    });
  }

  private recentlyFailed(fp: string): boolean {
    const f = this.failures.get(fp);
    return f !== undefined && Date.now() - f.at < RETRY_FAILED_LISTING_MS;
  }

  private load(fp: string): Promise<void> {
    let p = this.loading.get(fp);
    if (!p) {
      p = this.source
        .tools(fp)
        .then(
          (tools) => {
            this.reportDefinitionChanges(fp, this.cache.get(fp), tools);
            this.cache.set(fp, tools);
            this.failures.delete(fp);
          },
          (e: unknown) => {
            // A reload removed the spec's pool meanwhile: not the server's failure, and the spec may come back.
            if (e instanceof PoolGoneError) return;
            const message = e instanceof Error ? e.message : String(e);
            // A server that wants sign-in is left out at once (its earlier tools too) and asked again on the
            // next listing: `mcpdctl auth` fixes it from outside at any moment (docs/auth.md).
            const signIn = needsSignIn(e);
            if (signIn) this.cache.delete(fp);
            this.failures.set(fp, { at: signIn ? -Infinity : Date.now(), message });
            this.log('tool listing failed; the server is left out of listings until it answers', { fingerprint: fp, error: message });
          },
        )
        .finally(() => {
          this.loading.delete(fp);
          this.refreshAllUsing(fp);
        });
      this.loading.set(fp, p);
    }
    return p;
  }

  /**
   * A server that silently changes a tool's definition (description, schema) can change what a model
   * is told to do: every such change is logged with both hashes.
   */
  private reportDefinitionChanges(fp: string, before: readonly DownstreamTool[] | undefined, after: readonly DownstreamTool[]): void {
    if (!before) return;
    const old = new Map(before.map((t) => [t.name, definitionHash(t.definition)]));
    for (const t of after) {
      const was = old.get(t.name);
      const now = definitionHash(t.definition);
      if (was !== undefined && was !== now) this.log('tool definition changed', { fingerprint: fp, tool: t.name, before: was, after: now });
    }
  }

  private refreshAllUsing(fp: string): void {
    for (const [key, profile] of this.profiles) {
      if (enabledFingerprints(profile).includes(fp)) this.refresh(key);
    }
  }

  private refresh(profileName: string): void {
    const profile = this.profiles.get(profileName);
    const idx = this.indexes.get(profileName);
    if (!profile || !idx) return;
    const byServer = new Map<string, readonly DownstreamTool[]>();
    for (const s of profile.servers) {
      if (s.disabled) continue;
      const tools = this.cache.get(specFingerprint(s));
      if (tools) byServer.set(s.name, this.pins ? this.pins.admit(s.name, tools) : tools);
    }
    if (idx.update(byServer)) this.emit(profileName);
  }

  private emit(profile: string): void {
    const snap = this.indexes.get(profile)?.snapshot();
    if (!snap) return;
    for (const cb of this.changeListeners) cb(profile, snap);
  }
}

function fingerprintLookup(profile: Profile): (server: string) => string {
  const m = new Map(profile.servers.map((s) => [s.name, specFingerprint(s)]));
  return (server) => m.get(server) ?? '';
}

function enabledFingerprints(profile: Profile): string[] {
  return profile.servers.filter((s) => !s.disabled).map((s) => specFingerprint(s));
}
