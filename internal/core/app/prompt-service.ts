import type { Paged, PromptEntry, PromptSnapshot, PromptsApi, RequestOpts, Subscription } from '../../contract/control/control-areas.js';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { Profile } from '../../contract/model/profile.js';
import { listAllPages } from '../domain/aggregator/downstream-pages.js';
import { PromptIndex } from '../domain/aggregator/prompt-index.js';
import type { AreaDeps } from './area-deps.js';
import { CallerViews } from './caller-views.js';
import { AreaListings } from './resource-listings.js';
import type { ResourceService } from './resource-service.js';
import { afterReloads, viaPool } from './reload-retry.js';

/** Prompts per profile, namespaced like tools; prompt get and completion routed to the owner. */
export class PromptService implements PromptsApi {
  private readonly listings: AreaListings<readonly JsonObject[], PromptIndex>;
  /** Watches follow the caller: a reload that moves it to another profile moves its watch too. */
  private readonly views: CallerViews<PromptSnapshot>;

  constructor(
    private readonly deps: AreaDeps,
    /** Completion of `ref/resource` arguments routes by template or URI. */
    private readonly resources?: ResourceService,
  ) {
    const retentionSeconds = deps.store.current.runtime.snapshotRetentionSeconds;
    this.listings = new AreaListings<readonly JsonObject[], PromptIndex>(deps, {
      capability: 'prompts',
      empty: [],
      list: (fp, server) =>
        listAllPages(server, 'prompts/list', 'prompts', (cursor) =>
          deps.pools.request(fp, 'prompts/list', cursor === undefined ? {} : { cursor }, { forCache: true }),
        ),
      restore: (fp) => deps.pools.savedList?.(fp, 'prompts/list'),
      keep: (fp, l) => deps.pools.keepList?.(fp, 'prompts/list', [...l]),
      makeIndex: (profile, fingerprintOf) => new PromptIndex({ profile, fingerprintOf, retentionSeconds }),
      changed: (name) => this.views?.refresh((c) => deps.profileOf(c).name === name),
      admit: deps.itemPins ? (server, l) => (deps.itemPins as NonNullable<typeof deps.itemPins>).prompts.admit(server, l) : undefined,
    });
    this.views = new CallerViews(
      (caller) => this.listings.index(deps.profileOf(caller).name).snapshot(),
      // A watch's first snapshot comes within the listing budget, like a listing: what arrives later is a change.
      (caller) => this.listings.loadedForListing(deps.profileOf(caller)),
    );
    deps.pools.onNotification((fp, _instance, method) => {
      if (method === 'notifications/prompts/list_changed') this.listings.invalidate(fp);
    });
  }

  async list(caller: string, cursor?: string, pageSize?: number): Promise<Paged<PromptEntry>> {
    const profile = this.deps.profileOf(caller);
    // A continuation page comes from a pinned snapshot: loading must not block it.
    const pending = cursor ? [] : await this.listings.loadedForListing(profile);
    const page = this.listings.index(profile.name).list(cursor, pageSize ?? this.deps.store.current.runtime.pageSize);
    return { etag: page.etag, items: page.items, nextCursor: page.nextCursor, pending, freshForMs: this.listings.freshForMs(profile) };
  }

  watch(caller: string, lastEtag?: string): Subscription<PromptSnapshot> {
    return this.views.watch(caller, lastEtag);
  }

  async get(caller: string, name: string, args: JsonObject, opts: RequestOpts): Promise<JsonObject> {
    if (typeof name !== 'string' || name === '') throw new McpdError('INVALID_ARGUMENT', 'prompts/get needs a non-empty string "name"');
    return this.afterReloads(`prompt ${JSON.stringify(name)}`, async () => {
      const entry = await this.resolve(this.deps.profileOf(caller), name);
      return this.dispatch(entry.fingerprint, 'prompts/get', { name: entry.downstreamName, arguments: args }, opts);
    });
  }

  async complete(caller: string, params: JsonObject, opts: RequestOpts): Promise<JsonObject> {
    const ref = params.ref;
    if (!ref || typeof ref !== 'object' || Array.isArray(ref)) {
      throw new McpdError('INVALID_ARGUMENT', 'completion/complete needs "ref": {type: "ref/prompt", name} or {type: "ref/resource", uri}');
    }
    if (ref.type === 'ref/prompt') {
      if (typeof ref.name !== 'string' || ref.name === '')
        throw new McpdError('INVALID_ARGUMENT', 'completion/complete: ref/prompt needs a non-empty string "name"');
      const name = ref.name;
      return this.afterReloads(`prompt ${JSON.stringify(name)}`, async () => {
        const entry = await this.resolve(this.deps.profileOf(caller), name);
        return this.dispatch(entry.fingerprint, 'completion/complete', { ...params, ref: { ...ref, name: entry.downstreamName } }, opts);
      });
    }
    if (ref.type === 'ref/resource') {
      if (typeof ref.uri !== 'string' || ref.uri === '')
        throw new McpdError('INVALID_ARGUMENT', 'completion/complete: ref/resource needs a non-empty string "uri"');
      if (!this.resources) throw new McpdError('UNIMPLEMENTED', 'completion of resource arguments is not wired in this core');
      const resources = this.resources;
      const uri = ref.uri;
      return this.afterReloads(`resource ${JSON.stringify(uri)}`, async () => {
        const route = await resources.routeRef(caller, uri);
        return this.dispatch(route.fingerprint, 'completion/complete', params, opts);
      });
    }
    throw new McpdError(
      'INVALID_ARGUMENT',
      `completion/complete: unknown ref type ${JSON.stringify(ref.type)}; use "ref/prompt" or "ref/resource"`,
    );
  }

  /** An approval of withheld prompts: what is admitted changed. */
  pinsChanged(): void {
    this.listings.refreshAll();
  }

  /** After a reload: rebuild the indexes for the new store; watchers of callers that moved get their new profile's list. */
  applyStore(): void {
    this.listings.applyStoreFor(this.views);
  }

  /** Ends every watch (shutdown). */
  close(): void {
    this.views.close();
  }

  /** A request that a reload overtook while it resolved its prompt or URI resolves again after it. */
  private afterReloads<T>(what: string, attempt: () => Promise<T>): Promise<T> {
    return afterReloads(this.deps.reloads, what, attempt);
  }

  private dispatch(fp: string, method: string, params: JsonObject, opts: RequestOpts): Promise<JsonObject> {
    return viaPool(this.deps.pools.request(fp, method, params, opts));
  }

  /** Why an exposed prompt name is not listed when it is a withheld one (`server<sep>prompt`, or bare without prefixes). */
  private withheld(profile: Profile, name: string): McpdError | undefined {
    const pins = this.deps.itemPins?.prompts;
    if (!pins) return undefined;
    const { mode, separator } = profile.namespace;
    for (const s of profile.servers) {
      const downstream =
        mode === 'never' ? name : name.startsWith(`${s.name}${separator}`) ? name.slice(s.name.length + separator.length) : undefined;
      const refusal = downstream === undefined ? undefined : pins.refusal(s.name, downstream);
      if (refusal) return refusal;
    }
    return undefined;
  }

  private async resolve(profile: Profile, name: string): Promise<PromptEntry> {
    await this.listings.ensureLoaded(profile);
    try {
      return this.listings.index(profile.name).resolve(name);
    } catch (e) {
      if (this.listings.failuresFor(profile).length === 0) throw this.withheld(profile, name) ?? e;
      await this.listings.ensureLoaded(profile, { retryFailed: true });
      try {
        return this.listings.index(profile.name).resolve(name);
      } catch (again) {
        const failed = this.listings.failuresFor(profile);
        if (failed.length === 0) throw this.withheld(profile, name) ?? again;
        if (failed.length === 0 || !(again instanceof McpdError)) throw again;
        throw new McpdError(again.reason, `${again.message}; servers that could not be listed: ${failed.join('; ')}`);
      }
    }
  }
}
