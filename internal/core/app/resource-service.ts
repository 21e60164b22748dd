import type {
  Paged,
  RequestOpts,
  ResourceEntry,
  ResourceSnapshot,
  ResourceTemplateEntry,
  ResourcesApi,
  Subscription,
} from '../../contract/control/control-areas.js';
import { McpdError } from '../../shared/errors.js';
import { DPE_DOCUMENT_NOT_FOUND, isDpeError } from '../../contract/finder/dpe-error.js';
import { parseDpeUri } from '../../contract/finder/dpe-uri.js';
import type { JsonObject } from '../../shared/json.js';
import type { Profile } from '../../contract/model/profile.js';
import { listAllPages } from '../domain/aggregator/downstream-pages.js';
import { ResourceIndex, type ResourceRoute } from '../domain/aggregator/resource-index.js';
import type { ResourceListing } from '../domain/aggregator/resource-snapshot.js';
import type { AreaDeps } from './area-deps.js';
import { CallerViews } from './caller-views.js';
import { AreaListings } from './resource-listings.js';
import type { ItemPinsSet } from './item-pins.js';
import { ResourceSubscriptions, type SubscriptionInfo } from './resource-subscriptions.js';
import { afterReloads, viaPool } from './reload-retry.js';
import { contextChannelsOf, type ContextChannels } from '../../contract/control/context-channels.js';

const EMPTY: ResourceListing = Object.freeze({ resources: [], templates: [] });

/** A server's resources and templates as callers may see them: changed descriptions withheld (item-pins.ts). */
function admitResources(pins: ItemPinsSet, server: string, l: ResourceListing): ResourceListing {
  return { resources: pins.resources.admit(server, l.resources), templates: pins.templates.admit(server, l.templates) };
}

/** Resources and resource templates per profile, reads routed by URI, shared downstream subscriptions. */
export class ResourceService implements ResourcesApi {
  private readonly listings: AreaListings<ResourceListing, ResourceIndex>;
  private readonly subs: ResourceSubscriptions;
  /** Watches follow the caller: a reload that moves it to another profile moves its watch too. */
  private readonly views: CallerViews<ResourceSnapshot>;

  /** `subs`: the subscription hub shared with the context channels (its own one when not given). */
  constructor(
    private readonly deps: AreaDeps,
    subs?: ResourceSubscriptions,
  ) {
    const retentionSeconds = deps.store.current.runtime.snapshotRetentionSeconds;
    this.listings = new AreaListings<ResourceListing, ResourceIndex>(deps, {
      capability: 'resources',
      empty: EMPTY,
      list: (fp, server) => this.listServer(fp, server),
      admit: deps.itemPins ? (server, l) => admitResources(deps.itemPins as NonNullable<typeof deps.itemPins>, server, l) : undefined,
      restore: (fp) => {
        const resources = deps.pools.savedList?.(fp, 'resources/list');
        const templates = deps.pools.savedList?.(fp, 'resources/templates/list');
        return resources && templates ? { resources, templates } : undefined;
      },
      keep: (fp, l) => {
        deps.pools.keepList?.(fp, 'resources/list', [...l.resources]);
        deps.pools.keepList?.(fp, 'resources/templates/list', [...l.templates]);
      },
      makeIndex: (profile, fingerprintOf) => new ResourceIndex({ profile, fingerprintOf, retentionSeconds }),
      changed: (name) => this.views?.refresh((c) => deps.profileOf(c).name === name),
    });
    this.views = new CallerViews(
      (caller) => this.listings.index(deps.profileOf(caller).name).snapshot(),
      // A watch's first snapshot comes within the listing budget, like a listing: what arrives later is a change.
      (caller) => this.listings.loadedForListing(deps.profileOf(caller)),
    );
    // The hub hears notifications/resources/updated itself.
    this.subs = subs ?? new ResourceSubscriptions(deps.pools, deps.log);
    deps.pools.onNotification((fp, _instance, method) => {
      if (method === 'notifications/resources/list_changed') this.listings.invalidate(fp);
    });
  }

  async list(caller: string, cursor?: string, pageSize?: number): Promise<Paged<ResourceEntry>> {
    const { profile, pending } = await this.loaded(caller, cursor);
    const page = this.listings.index(profile.name).listResources(cursor, pageSize ?? this.pageSize());
    return { etag: page.etag, items: page.items, nextCursor: page.nextCursor, pending, freshForMs: this.listings.freshForMs(profile) };
  }

  async listTemplates(caller: string, cursor?: string, pageSize?: number): Promise<Paged<ResourceTemplateEntry>> {
    const { profile, pending } = await this.loaded(caller, cursor);
    const page = this.listings.index(profile.name).listTemplates(cursor, pageSize ?? this.pageSize());
    return { etag: page.etag, items: page.items, nextCursor: page.nextCursor, pending, freshForMs: this.listings.freshForMs(profile) };
  }

  watch(caller: string, lastEtag?: string): Subscription<ResourceSnapshot> {
    return this.views.watch(caller, lastEtag);
  }

  async channels(caller: string): Promise<ContextChannels> {
    const profile = this.deps.profileOf(caller);
    await this.listings.loadedForListing(profile);
    const snap = this.listings.index(profile.name).snapshot();
    return contextChannelsOf([...snap.resources.map((r) => r.uri), ...snap.templates.map((t) => t.uriTemplate)]);
  }

  /**
   * The resource URIs the spec lists, as the listings know them (from disk while no instance ran: no server
   * starts for it); undefined when its listing failed. What the context channels decide a source by.
   */
  async knownUris(fingerprint: string): Promise<string[] | undefined> {
    const l = await this.listings.known(fingerprint);
    return l?.resources.map((r) => r.uri as string);
  }

  async read(caller: string, uri: string, opts: RequestOpts): Promise<JsonObject> {
    // A read that a reload overtook while it routed its URI routes again after it.
    return afterReloads(this.deps.reloads, `resource ${JSON.stringify(uri)}`, async () => {
      const route = await this.route(caller, uri);
      return viaPool(this.deps.pools.request(route.fingerprint, 'resources/read', { uri }, opts));
    });
  }

  async subscribe(caller: string, uri: string, signal: AbortSignal): Promise<Subscription<JsonObject>> {
    const route = await this.route(caller, uri);
    return this.subs.add(route.fingerprint, route.server, uri, signal);
  }

  /** The server that serves `uri` for the caller (for reads, subscriptions and completion). */
  async route(caller: string, uri: string): Promise<ResourceRoute> {
    if (typeof uri !== 'string' || uri === '') throw new McpdError('INVALID_ARGUMENT', 'a resource request needs a non-empty string "uri"');
    const dpeHost = /^dpe:/i.test(uri) ? validDpeHost(uri) : undefined;
    const profile = this.deps.profileOf(caller);
    await this.listings.ensureLoaded(profile);
    const find = () => {
      const idx = this.listings.index(profile.name);
      return dpeHost !== undefined ? idx.routeDpeHost(dpeHost) : idx.route(uri);
    };
    let route = find();
    if (!route && this.listings.failuresFor(profile).length > 0) {
      // Explicit demand: retry servers whose listing failed before saying "unknown".
      await this.listings.ensureLoaded(profile, { retryFailed: true });
      route = find();
    }
    if (route) return route;
    const withheld = this.deps.itemPins?.resources.refusalAmong(
      profile.servers.map((s) => s.name),
      uri,
    );
    throw withheld ?? this.notFound(profile, uri, dpeHost);
  }

  /** An approval of withheld resources or templates: what is admitted changed. */
  pinsChanged(): void {
    this.listings.refreshAll();
  }

  /** Resolves a completion `ref/resource` (a template as listed, or a URI) to its server. */
  async routeRef(caller: string, uriOrTemplate: string): Promise<ResourceRoute> {
    const profile = this.deps.profileOf(caller);
    await this.listings.ensureLoaded(profile);
    const byTemplate = this.listings.index(profile.name).routeTemplate(uriOrTemplate);
    return byTemplate ?? this.route(caller, uriOrTemplate);
  }

  /** Live downstream subscriptions (one per URI, however many callers share it). */
  subscriptions(): SubscriptionInfo[] {
    return this.subs.list();
  }

  /** After a reload: rebuild the indexes for the new store; watchers of callers that moved get their new profile's list. */
  applyStore(): void {
    this.listings.applyStoreFor(this.views);
  }

  /** Ends every watch (shutdown). */
  close(): void {
    this.views.close();
  }

  /** The caller's profile, loaded for a listing; `pending`: its servers still starting past the budget. */
  private async loaded(caller: string, cursor: string | undefined): Promise<{ profile: Profile; pending: string[] }> {
    const profile = this.deps.profileOf(caller);
    // A continuation page comes from a pinned snapshot: loading must not block it.
    const pending = cursor ? [] : await this.listings.loadedForListing(profile);
    return { profile, pending };
  }

  private listServer(fp: string, server: string): Promise<ResourceListing> {
    const page = (method: string) => (cursor: string | undefined) =>
      this.deps.pools.request(fp, method, cursor === undefined ? {} : { cursor }, { forCache: true });
    return Promise.all([
      listAllPages(server, 'resources/list', 'resources', page('resources/list')),
      listAllPages(server, 'resources/templates/list', 'resourceTemplates', page('resources/templates/list')).catch((e: unknown) => {
        // Templates are optional in practice: a server that lists resources but not templates still serves its resources.
        if (e instanceof McpdError && e.reason === 'DOWNSTREAM_ERROR' && e.details.specCode === -32601) return [];
        throw e;
      }),
    ]).then(([resources, templates]) => ({ resources, templates }));
  }

  private notFound(profile: Profile, uri: string, dpeHost: string | undefined): McpdError {
    const failed = this.listings.failuresFor(profile);
    const also = failed.length > 0 ? `; servers that could not be listed: ${failed.join('; ')}` : '';
    if (dpeHost !== undefined) {
      // The Finder's "document not found" (4201), as a dpe:// server answers for a host it does not serve.
      return new McpdError(
        'NOT_FOUND',
        `no server in profile "${profile.name}" serves dpe://${dpeHost} (asked for ${uri}); the host must be a server that lists dpe://${dpeHost}/… resources${also}`,
        { specCode: DPE_DOCUMENT_NOT_FOUND, data: { host: dpeHost, uri } },
      );
    }
    return new McpdError(
      'NOT_FOUND',
      `no resource "${uri}" in profile "${profile.name}": no server lists this URI or a template matching it; list the resources and templates to see what is served${also}`,
    );
  }

  private pageSize(): number {
    return this.deps.store.current.runtime.pageSize;
  }
}

/** Validates a dpe:// URI before anything is started; a bad one is the Finder's 4204 with its details. */
function validDpeHost(uri: string): string {
  try {
    return parseDpeUri(uri).host;
  } catch (e) {
    if (isDpeError(e)) throw new McpdError('INVALID_ARGUMENT', e.message, { specCode: e.code, data: e.data });
    throw e;
  }
}
