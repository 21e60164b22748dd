/**
 * What one pooled server (a fingerprint) contributes to the context channels: its `window://`
 * resources with their contents and its `dpe://` Level-1 documents. Shared by every profile that
 * uses the spec; the server name is applied per profile by the service.
 *
 * Work on one source is serialized (load, list_changed, updated), so a slow refresh can never
 * overwrite a newer one.
 */
import { DesktopChangeDetector, supportsResourceSubscribe } from '../domain/desktop/change-detector.js';
import { isWindowUri, parseWindowUri, windowIdentity } from '../../contract/desktop/window-uri.js';
import { FinderChangeDetector } from '../domain/finder/change-detect.js';
import type { DPEDocumentSummary } from '../../contract/finder/types.js';
import { contextChannelsOf } from '../../contract/control/context-channels.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import type { CoreLog } from './area-deps.js';
import { SourceDocuments } from './context-documents.js';
import { errorText, listAllResources, mapLimit, readContents, READ_CONCURRENCY } from './context-downstream.js';
import type { PoolPort } from './pool-port.js';
import type { ResourceSubscriptions } from './resource-subscriptions.js';

export interface SourceWindow {
  /** The `resources/list` entry as the server sent it. */
  resource: JsonObject;
  /** `ReadResourceResult.contents`; undefined when not read (invalid URI) or the read failed. */
  contents?: JsonValue;
}

/** What a refresh changed; `reason` is what watchers are told. */
export interface SourceChange {
  desktop: boolean;
  finder: boolean;
  reason: string;
}

export interface SourceDeps {
  pools: Pick<PoolPort, 'request' | 'capabilities'>;
  /** The hub shared with resources/subscribe callers: one downstream subscription per URI for all. */
  subscriptions: Pick<ResourceSubscriptions, 'add'>;
  desktop: DesktopChangeDetector;
  finder: FinderChangeDetector;
  log: CoreLog;
  /** Ids of the pool's ready or busy instances right now. */
  liveInstances(fp: string): Set<string>;
  /**
   * The resource URIs the resource listings know for the spec (restored from disk while no instance ran);
   * undefined when unknown. A server they show without window:// or dpe:// resources is not started to list them again.
   */
  knownUris?(fp: string): Promise<string[] | undefined>;
}

const NONE: SourceChange = { desktop: false, finder: false, reason: '' };

function isWindowScheme(uri: string): boolean {
  return uri.slice(0, 9).toLowerCase() === 'window://';
}

export class ContextSource {
  /** The server declares `resources.subscribe` (known after the first load). */
  participates = false;
  windows: SourceWindow[] = [];
  private readonly documents: SourceDocuments;
  /** Why the server contributes nothing right now (could not start, could not list). */
  loadProblem?: string;
  /** Window URI → why its contents could not be read. */
  readonly readProblems = new Map<string, string>();
  private caps?: JsonObject;
  private loaded = false;
  private stale = false;
  private loading = false;
  private instanceIds = new Set<string>();
  /** A desktop watcher uses this server: its window:// subscriptions are held (see watchWindows). */
  private windowsWatched = false;
  /** URI → what releases our hold on its downstream subscription (the hub re-subscribes after a restart). */
  private readonly held = new Map<string, AbortController>();
  private chain: Promise<unknown> = Promise.resolve();
  /** Work items on `chain` not finished yet. */
  private queued = 0;

  constructor(
    readonly fingerprint: string,
    /** Server name used in messages (the first profile server seen with this spec). */
    readonly label: string,
    private readonly deps: SourceDeps,
  ) {
    this.documents = new SourceDocuments(fingerprint, label, deps);
  }

  /** Level-1 URI (as listed) → summary; `server` holds the label, replaced per profile. */
  get docs(): ReadonlyMap<string, DPEDocumentSummary> {
    return this.documents.docs;
  }

  /** Bumped whenever `docs` changes, so assembled catalogues know when to rebuild. */
  get docsVersion(): number {
    return this.documents.version;
  }

  /**
   * Loads on first use and after the server was restarted; otherwise serves the cache, but only
   * once the refreshes queued before it (updated, list_changed) are done: a server sends
   * resources/updated before its tool call answers, so a read after that answer must see it.
   */
  ensure(opts: { windows?: boolean } = {}): Promise<void> {
    const reread = opts.windows === true && !this.windowsWatched && this.windows.length > 0;
    if (this.loaded && !this.stale && this.queued === 0 && !reread) return Promise.resolve();
    return this.run(async () => {
      if (!this.loaded || this.stale) await this.load();
      else if (opts.windows === true && !this.windowsWatched) await this.rereadWindows();
    });
  }

  /**
   * Some desktop watcher's profile uses this server (or none does any more). Only then are its
   * window:// subscriptions held: a server such as mcpd-desktop-host polls the desktop while any are
   * open. Unwatched, a desktop read re-reads the windows instead. Returns true when the windows must
   * be read again before the watcher's view (nothing told us of changes meanwhile).
   */
  watchWindows(on: boolean): boolean {
    if (on === this.windowsWatched) return false;
    this.windowsWatched = on;
    if (!on) {
      this.releaseWindows();
      return false;
    }
    if (this.loaded && !this.loading) this.stale = true;
    return this.stale;
  }

  /**
   * The live (ready or busy) instances of the pool changed. A new instance may hold other state:
   * the next read reloads. (Subscriptions are the hub's: it re-subscribes when their instance ends.)
   * Returns true when stale.
   */
  noteInstances(ids: Set<string>): boolean {
    const fresh = [...ids].some((id) => !this.instanceIds.has(id));
    this.instanceIds = ids;
    if (fresh && this.loaded && !this.loading) this.stale = true;
    return this.stale;
  }

  /** `notifications/resources/list_changed`: re-list and compare the window:// and dpe:// sets. */
  listChanged(): Promise<SourceChange> {
    return this.run(async () => {
      if (!this.loaded || !this.participates) return NONE;
      let list: JsonObject[];
      try {
        list = await listAllResources(this.deps.pools, this.fingerprint, this.label);
      } catch (e) {
        this.deps.log('warning', 'context.relist_failed', { server: this.label, error: errorText(e) });
        return NONE;
      }
      const change = await this.applyList(list, false);
      return { ...change, reason: `server ${this.label} changed its resource list` };
    });
  }

  /** `notifications/resources/updated`: window:// signals at once (after re-reading it); dpe:// re-reads the document. */
  updated(uri: string): Promise<SourceChange> {
    return this.run(async () => {
      if (!this.loaded || !this.participates) return NONE;
      if (this.deps.desktop.onUpdated(this.fingerprint, uri, this.caps)) {
        const w = this.findWindow(uri);
        if (w) w.contents = await this.readWindow(w.resource.uri as string);
        return { desktop: true, finder: false, reason: `window ${uri} updated` };
      }
      if (this.deps.finder.onUpdated(uri)) {
        await this.documents.refreshFor(uri);
        return { desktop: false, finder: true, reason: `document ${uri} updated` };
      }
      return NONE;
    });
  }

  /** The pool is gone: drop everything; says which channels lost content. */
  forget(): SourceChange {
    for (const ac of this.held.values()) ac.abort();
    this.held.clear();
    const desktop = this.deps.desktop.forget(this.fingerprint);
    const finder = this.deps.finder.removeServer(this.fingerprint);
    this.windows = [];
    this.documents.forget();
    return { desktop, finder, reason: `server ${this.label} was removed` };
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    this.queued++;
    const next = this.chain.then(fn, fn).finally(() => this.queued--);
    // Ignored: the chain only orders calls; each caller gets its own rejection through `next`.
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async load(): Promise<void> {
    this.loading = true;
    this.loadProblem = undefined;
    try {
      this.caps = await this.capabilities();
      this.participates = supportsResourceSubscribe(this.caps);
      if (!this.participates) {
        this.deps.desktop.onListChanged(this.fingerprint, [], this.caps);
        this.deps.finder.replace(this.fingerprint, []);
        this.windows = [];
        this.documents.clear();
        return;
      }
      await this.applyList(await this.resourceList(), true);
    } catch (e) {
      this.loadProblem = errorText(e);
    } finally {
      // What we subscribed on: a later status report naming the same instances is no restart.
      this.instanceIds = this.deps.liveInstances(this.fingerprint);
      // A failed load is retried on the next read rather than cached as "no windows".
      this.loaded = this.loadProblem === undefined;
      this.stale = false;
      this.loading = false;
    }
  }

  /** Known after any instance initialized (or from disk); otherwise one is started (on demand, cause `metadata`) with a ping. */
  private async capabilities(): Promise<JsonObject | undefined> {
    const known = this.deps.pools.capabilities(this.fingerprint);
    if (known) return known;
    try {
      await this.deps.pools.request(this.fingerprint, 'ping', {}, { forCache: true });
    } catch (e) {
      // The ping only starts an instance: a 2026-07-28 server has no ping and refuses it once it is up.
      if (!this.deps.pools.capabilities(this.fingerprint)) throw e;
    }
    return this.deps.pools.capabilities(this.fingerprint);
  }

  /**
   * The server's resources: those the listings know when none of them is a window:// or dpe:// resource
   * (no content to read: nothing is started for the channels), else listed from the server itself.
   */
  private async resourceList(): Promise<JsonObject[]> {
    const known = await this.deps.knownUris?.(this.fingerprint);
    if (known) {
      const channels = contextChannelsOf(known);
      if (!channels.desktop && !channels.finder) return known.map((uri) => ({ uri }));
    }
    return listAllResources(this.deps.pools, this.fingerprint, this.label);
  }

  /** Applies a full resource list; `fresh` re-reads everything, otherwise only what is new. */
  private async applyList(list: JsonObject[], fresh: boolean): Promise<SourceChange> {
    const uris = list.map((r) => r.uri as string);
    const desktop = this.deps.desktop.onListChanged(this.fingerprint, uris, this.caps);
    const finder = this.deps.finder.replace(this.fingerprint, uris);
    const before = new Map(this.windows.map((w) => [w.resource.uri as string, w]));
    const windowResources = list.filter((r) => isWindowScheme(r.uri as string));
    this.windows = await mapLimit(windowResources, READ_CONCURRENCY, async (resource) => {
      const uri = resource.uri as string;
      const old = before.get(uri);
      if (!fresh && old) return { resource, contents: old.contents };
      return { resource, contents: isWindowUri(uri) ? await this.readWindow(uri) : undefined };
    });
    const listed = new Set(windowResources.map((r) => r.uri as string));
    for (const uri of [...this.readProblems.keys()]) if (!listed.has(uri)) this.readProblems.delete(uri);
    const docUris = await this.documents.apply(uris, fresh, finder);
    const windowUris = this.windowsWatched ? this.windows.map((w) => w.resource.uri as string).filter(isWindowUri) : [];
    this.subscribeAll([...windowUris, ...docUris]);
    return { desktop, finder, reason: '' };
  }

  /** Holds a subscription to every listed URI through the hub; lets go of those no longer listed. */
  private subscribeAll(uris: string[]): void {
    const wanted = new Set(uris);
    for (const [u, ac] of [...this.held]) {
      if (wanted.has(u)) continue;
      ac.abort();
      this.held.delete(u);
    }
    for (const uri of wanted) {
      if (this.held.has(uri)) continue;
      const ac = new AbortController();
      this.held.set(uri, ac);
      // Updates arrive through onNotification like every other; the sink only holds the subscription.
      this.deps.subscriptions.add(this.fingerprint, this.label, uri, ac.signal).catch((e: unknown) => {
        if (this.held.get(uri) === ac) this.held.delete(uri);
        this.deps.log('warning', 'context.subscribe_failed', { server: this.label, uri, error: errorText(e) });
      });
    }
  }

  /** Lets go of the window:// subscriptions (the dpe:// ones keep the Finder's catalogue current). */
  private releaseWindows(): void {
    for (const [uri, ac] of [...this.held]) {
      if (!isWindowUri(uri)) continue;
      ac.abort();
      this.held.delete(uri);
    }
  }

  /** Unwatched windows: nothing told us of changes, so a desktop read reads them again. */
  private async rereadWindows(): Promise<void> {
    await mapLimit(this.windows, READ_CONCURRENCY, async (w) => {
      const uri = w.resource.uri as string;
      if (isWindowUri(uri)) w.contents = await this.readWindow(uri);
    });
  }

  private async readWindow(uri: string): Promise<JsonValue | undefined> {
    try {
      const contents = await readContents(this.deps.pools, this.fingerprint, uri);
      this.readProblems.delete(uri);
      return contents;
    } catch (e) {
      this.readProblems.set(uri, `reading window ${JSON.stringify(uri)} failed: ${errorText(e)}`);
      return undefined;
    }
  }

  private findWindow(uri: string): SourceWindow | undefined {
    const exact = this.windows.find((w) => w.resource.uri === uri);
    if (exact) return exact;
    const p = parseWindowUri(uri);
    if (!p.ok) return undefined;
    const id = windowIdentity(p.value);
    return this.windows.find((w) => {
      const q = parseWindowUri(w.resource.uri as string);
      return q.ok && windowIdentity(q.value) === id;
    });
  }
}
