import type {
  ContextApi,
  ContextChange,
  DesktopView,
  FinderQuery,
  FinderView,
  Subscription,
} from '../../contract/control/control-areas.js';
import { DesktopChangeDetector } from '../domain/desktop/change-detector.js';
import { organizeDesktop } from '../domain/desktop/organize.js';
import { FinderChangeDetector } from '../domain/finder/change-detect.js';
import { organizeFinder, sortDocuments } from '../domain/finder/organize.js';
import { specFingerprint } from '../../contract/model/fingerprint.js';
import { serverOrder } from '../domain/history/server-order.js';
import type { JsonObject } from '../../shared/json.js';
import type { Profile } from '../../contract/model/profile.js';
import type { PoolStatus } from '../../contract/model/runtime.js';
import type { AreaDeps } from './area-deps.js';
import { CallerChannels, type ViewState } from './context-channels.js';
import { ContextSource, type SourceChange } from './context-source.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import {
  assembleCatalog,
  catalogKey,
  desktopEtag,
  finderEtag,
  sourceWarnings,
  windowInputs,
  type Catalog,
  type ProfileSource,
} from './context-views.js';

const LIST_CHANGED = 'notifications/resources/list_changed';
const UPDATED = 'notifications/resources/updated';

/**
 * The Desktop (window://) and Finder (dpe://) channels built from downstream resources
 * (docs/desktop.md, docs/finder.md). Servers take part when they declare `resources.subscribe`;
 * they are started on demand by the first desktop or finder request that needs them.
 */
export class ContextService implements ContextApi {
  private readonly sources = new Map<string, ContextSource>();
  private readonly desktopDetector = new DesktopChangeDetector();
  private readonly finderDetector = new FinderChangeDetector();
  private readonly desktops: CallerChannels;
  private readonly finders: CallerChannels;
  private readonly profileServers = new WeakMap<Profile, { server: string; fingerprint: string }[]>();
  private readonly catalogs = new WeakMap<Profile, Catalog>();

  private readonly subs: ResourceSubscriptions;

  /** `subs`: the subscription hub shared with ResourceService (its own one when not given). */
  constructor(
    private readonly deps: AreaDeps,
    subs?: ResourceSubscriptions,
    /** What the resource listings know of a spec's URIs (ResourceService.knownUris): see SourceDeps.knownUris. */
    private readonly knownUris?: (fp: string) => Promise<string[] | undefined>,
  ) {
    this.subs = subs ?? new ResourceSubscriptions(deps.pools, deps.log);
    this.desktops = new CallerChannels(
      'desktop',
      (c) => this.desktopState(c),
      deps.log,
      () => this.holdWatchedWindows(),
    );
    this.finders = new CallerChannels('finder', (c) => this.finderState(c), deps.log);
    deps.pools.onNotification((fp, _instance, method, params) => this.onNotification(fp, method, params));
    deps.pools.onStatusChange(() => this.onStatusChange());
    deps.history.onRecord((caller) => this.onToolCall(caller));
  }

  async desktop(caller: string, size: number | undefined, window: string | undefined): Promise<DesktopView> {
    organizeDesktop([], size, [], window); // bad arguments fail before any server is started
    const servers = await this.prepare(this.deps.profileOf(caller), true);
    const org = organizeDesktop(windowInputs(servers), size, this.deps.history.get(caller), window);
    return { etag: desktopEtag(org.entries), windows: org.entries, warnings: [...sourceWarnings(servers), ...org.warnings] };
  }

  watchDesktop(caller: string): Subscription<ContextChange> {
    return this.desktops.subscribe(caller);
  }

  async finder(caller: string, query: FinderQuery): Promise<FinderView> {
    const req = { keywords: query.keywords, file_type: query.fileType, offset: query.offset, limit: query.limit };
    organizeFinder([], req, []); // bad offset / limit fail before any server is started
    const catalog = await this.catalog(this.deps.profileOf(caller));
    const order = serverOrder(this.deps.history.get(caller).records(), catalog.servers);
    const r = organizeFinder(catalog.docs, req, order);
    return { documents: r.documents as unknown as JsonObject[], totalCount: r.total_count };
  }

  watchFinder(caller: string): Subscription<ContextChange> {
    return this.finders.subscribe(caller);
  }

  /** Ends every watch stream (core shutdown, tests). */
  close(): void {
    this.desktops.close();
    this.finders.close();
  }

  /**
   * The profile's enabled servers with their sources, each loaded (started on demand); `windows`: the
   * window contents are needed current (a desktop view).
   */
  private async prepare(profile: Profile, windows = false): Promise<ProfileSource[]> {
    const servers = this.serversOf(profile).map((s) => ({ ...s, source: this.sourceFor(s.fingerprint, s.server) }));
    await Promise.all(servers.map((s) => s.source.ensure({ windows })));
    return servers;
  }

  /**
   * Holds the window:// subscriptions of exactly the servers some desktop watcher's profile uses: the
   * last watcher leaving lets them go (a desktop server stops polling), a watcher coming back takes them
   * again and re-reads what may have changed meanwhile.
   */
  private holdWatchedWindows(): void {
    const watched = this.desktopWatchedFingerprints();
    for (const [fp, source] of this.sources) {
      if (!source.watchWindows(watched.has(fp))) continue;
      // ensure() records a failed load as the source's problem rather than rejecting; signal() is synchronous.
      void source.ensure().then(() => this.signal(fp, { desktop: true, finder: false, reason: 'desktop watched again' }, true));
    }
  }

  private desktopWatchedFingerprints(): Set<string> {
    const out = new Set<string>();
    for (const w of this.desktops.watched()) for (const s of this.serversOf(this.deps.profileOf(w.caller))) out.add(s.fingerprint);
    return out;
  }

  private serversOf(profile: Profile): { server: string; fingerprint: string }[] {
    let list = this.profileServers.get(profile);
    if (!list) {
      list = profile.servers.filter((s) => !s.disabled).map((s) => ({ server: s.name, fingerprint: specFingerprint(s) }));
      this.profileServers.set(profile, list);
    }
    return list;
  }

  private sourceFor(fp: string, label: string): ContextSource {
    let s = this.sources.get(fp);
    if (!s) {
      s = new ContextSource(fp, label, {
        pools: this.deps.pools,
        subscriptions: this.subs,
        desktop: this.desktopDetector,
        finder: this.finderDetector,
        log: this.deps.log,
        liveInstances: (f) => liveInstances(this.deps.pools.status(), f),
        knownUris: this.knownUris,
      });
      this.sources.set(fp, s);
      s.watchWindows(this.desktopWatchedFingerprints().has(fp));
    }
    return s;
  }

  private async catalog(profile: Profile): Promise<Catalog> {
    const servers = await this.prepare(profile);
    const cached = this.catalogs.get(profile);
    if (cached && cached.key === catalogKey(servers)) return cached;
    const fresh = assembleCatalog(servers);
    this.catalogs.set(profile, fresh);
    return fresh;
  }

  private fingerprintsOf(caller: string): string {
    return this.serversOf(this.deps.profileOf(caller))
      .map((s) => s.fingerprint)
      .join(',');
  }

  private async desktopState(caller: string): Promise<ViewState> {
    const fingerprints = this.fingerprintsOf(caller);
    const servers = await this.prepare(this.deps.profileOf(caller), true);
    const org = organizeDesktop(windowInputs(servers), undefined, this.deps.history.get(caller));
    return { etag: desktopEtag(org.entries), order: org.serverOrder, fingerprints };
  }

  private async finderState(caller: string): Promise<ViewState> {
    const fingerprints = this.fingerprintsOf(caller);
    const catalog = await this.catalog(this.deps.profileOf(caller));
    const order = serverOrder(this.deps.history.get(caller).records(), catalog.servers);
    return { etag: finderEtag(sortDocuments(catalog.docs, order)), order, fingerprints };
  }

  private onNotification(fp: string, method: string, params: JsonObject): void {
    const source = this.sources.get(fp);
    if (!source) return; // nothing cached yet: the first read loads fresh
    let change: Promise<SourceChange>;
    if (method === LIST_CHANGED) change = source.listChanged();
    else if (method === UPDATED && typeof params.uri === 'string') change = source.updated(params.uri);
    else return;
    // Handled: a failed refresh is logged; the watchers hear of a change when it lands.
    void change.then(
      (c) => this.signal(fp, c),
      (e: unknown) => this.deps.log('warning', 'context.refresh_failed', { fingerprint: fp, error: String(e) }),
    );
  }

  /** Tells the watchers whose profile uses `fp`. */
  private signal(fp: string, change: SourceChange, onlyIfChanged = false): void {
    const uses = (caller: string) => this.fingerprintsOf(caller).split(',').includes(fp);
    if (change.desktop)
      // publish() logs its own failures and never rejects; watchers hear the result, nobody waits for it.
      for (const w of this.desktops.watched()) if (uses(w.caller)) void this.desktops.publish(w.caller, change.reason, onlyIfChanged);
    if (change.finder)
      // Likewise.
      for (const w of this.finders.watched()) if (uses(w.caller)) void this.finders.publish(w.caller, change.reason, onlyIfChanged);
  }

  /**
   * Pools came or went (reload), or instances started or stopped. A new instance may serve other
   * content: reload what is watched (the hub re-subscribes on its own). A caller whose profile
   * changed gets a fresh view.
   */
  private onStatusChange(): void {
    // Every call's slot taken and given back is a status change: with nothing cached and nobody
    // watching there is nothing to do, and building the status would tax every call.
    if (this.sources.size === 0 && !this.desktops.hasWatchers() && !this.finders.hasWatchers()) return;
    const status = this.deps.pools.status();
    const pools = new Set(status.map((p) => p.fingerprint));
    for (const [fp, source] of this.sources) {
      if (!pools.has(fp)) {
        this.sources.delete(fp);
        source.forget();
        continue;
      }
      if (source.noteInstances(liveInstances(status, fp)) && this.isWatched(fp)) {
        // ensure() records a failed load as the source's problem rather than rejecting; signal() is synchronous.
        void source.ensure().then(() => this.signal(fp, { desktop: true, finder: true, reason: `server ${source.label} restarted` }, true));
      }
    }
    // A reload may have moved a watcher to other servers.
    this.holdWatchedWindows();
    for (const [channels, reason] of [
      [this.desktops, 'profile changed'],
      [this.finders, 'profile changed'],
    ] as const) {
      for (const w of channels.watched()) {
        // publish() logs its own failures and never rejects; the watcher gets the new view when it is ready.
        if (w.state && w.state.fingerprints !== this.fingerprintsOf(w.caller)) void channels.publish(w.caller, reason, true);
      }
    }
  }

  private isWatched(fp: string): boolean {
    return [...this.desktops.watched(), ...this.finders.watched()].some((w) => this.fingerprintsOf(w.caller).split(',').includes(fp));
  }

  /** A tool call moves its server to the front: a change when the visible order moved. */
  private onToolCall(caller: string): void {
    for (const channels of [this.desktops, this.finders]) {
      const state = channels.watchedState(caller);
      if (!state) continue;
      const next = serverOrder(this.deps.history.get(caller).records(), state.order);
      // Likewise: publish() never rejects, and the tool call that changed the order must not wait for views.
      if (next.some((s, i) => s !== state.order[i])) void channels.publish(caller, 'a tool call changed the server order');
    }
  }
}

function liveInstances(status: readonly PoolStatus[], fp: string): Set<string> {
  const p = status.find((x) => x.fingerprint === fp);
  return new Set((p?.instances ?? []).filter((i) => i.state === 'ready' || i.state === 'busy').map((i) => i.id));
}
