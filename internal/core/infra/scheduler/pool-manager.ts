import type { CallDone, Launcher, StartedCall } from '../../../contract/model/downstream.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { RuntimeSettings } from '../../../contract/model/profile.js';
import type { PoolStatus } from '../../../contract/model/runtime.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import { realClock, type Clock } from './clock.js';
import { Pool } from './pool.js';
import type { CachedList } from './list-freshness.js';
import { PoolGoneError } from './messages.js';
import { promiseOf } from '../../domain/call-adapters.js';
import type { MetadataStore, SavedList } from './metadata-store.js';
import { PoolEventHub, type NotificationListener, type StderrListener } from './pool-event-hub.js';
import type { CallOptions, LogFn } from './types.js';

export interface PoolManagerOptions {
  launcher: Launcher;
  runtime: RuntimeSettings;
  clock?: Clock;
  log?: LogFn;
  /** Keeps the metadata cache across core restarts; absent = memory only. */
  metadataStore?: MetadataStore;
  /** [0, 1) for the restart backoff's jitter; Math.random when absent (tests pass a constant). */
  random?: () => number;
}

export type DesiredSpecs = Map<string, { spec: ServerSpec; references: string[] }>;

/** Owns every pool: which exist (reconcile), routing calls to them, events and status. */
export class PoolManager {
  private readonly pools = new Map<string, Pool>();
  private readonly clock: Clock;
  private readonly log: LogFn;
  private readonly hub = new PoolEventHub({ toolsChanged: (fp) => this.persistMetadata(fp), down: () => this.down });
  private readonly closing = new Set<Promise<void>>();
  private readonly closingPools = new Set<Pool>();
  private instanceSeq = 0;
  private down = false;

  constructor(private readonly opts: PoolManagerOptions) {
    this.clock = opts.clock ?? realClock;
    this.log = opts.log ?? (() => {});
  }

  /** Makes the set of pools match `specs` (key = fingerprint): new ones start warm instances, removed ones drain and stop. */
  async reconcile(specs: DesiredSpecs, opts: { resumeSuspended?: boolean } = {}): Promise<void> {
    if (this.down) throw new McpdError('UNAVAILABLE', 'the runtime is shutting down');
    const removals: Promise<void>[] = [];
    for (const [fp, pool] of this.pools) {
      if (specs.has(fp)) continue;
      this.pools.delete(fp);
      this.log({ level: 'info', event: 'pool.removed', fingerprint: fp, message: `removing pool of server ${pool.spec.name}` });
      removals.push(this.trackClose(pool.close('removed', 'its spec was removed or changed'), pool));
    }
    for (const [fp, { spec, references }] of specs) {
      const existing = this.pools.get(fp);
      if (existing) {
        existing.spec = spec; // same fingerprint: only non-fingerprinted fields (the name) can differ
        existing.references = [...references];
        if (opts.resumeSuspended) existing.resume();
        continue;
      }
      const pool = new Pool(fp, spec, [...references], {
        launcher: this.opts.launcher,
        runtime: this.opts.runtime,
        clock: this.clock,
        log: this.log,
        events: this.hub.events,
        newInstanceId: () => `${spec.name}-${++this.instanceSeq}`,
        random: this.opts.random,
      });
      this.pools.set(fp, pool);
      const saved = this.opts.metadataStore?.load(fp);
      if (saved) pool.restore(saved);
      this.log({ level: 'info', event: 'pool.created', fingerprint: fp, message: `pool for server ${spec.name} created` });
      pool.ensureWarm(spec.activationMode === 'always-on' ? 'always-on' : 'min-ready');
    }
    this.opts.metadataStore?.retain(new Set(specs.keys()));
    this.hub.statusChanged();
    await Promise.all(removals);
  }

  /** The promise wrapper of `toolCall`; `opts.signal` cancels it. */
  callTool(fp: string, name: string, args: JsonObject, opts: CallOptions = {}): Promise<JsonObject> {
    return promiseOf((done) => this.toolCall(fp, name, args, opts, done), opts.signal);
  }

  /** See Pool.toolCall: a pool that is gone fails the call at once (ToolCalls retries it after a reload). */
  toolCall(fp: string, name: string, args: JsonObject, opts: CallOptions, done: CallDone): StartedCall {
    let pool: Pool;
    try {
      pool = this.pool(fp);
    } catch (e) {
      done.error(e as Error);
      return NOTHING_TO_CANCEL;
    }
    return pool.toolCall(name, args, opts, done);
  }

  async request(fp: string, method: string, params: JsonObject, opts: CallOptions = {}): Promise<JsonObject> {
    return this.pool(fp).request(method, params, opts);
  }

  async tools(fp: string, opts: { signal?: AbortSignal } = {}): Promise<DownstreamTool[]> {
    return this.pool(fp).tools(opts.signal);
  }

  /** The pool's cached list ran out of its TTL and an instance runs to list it again (see Pool.listStale). */
  listStale(fp: string, method: CachedList): boolean {
    return this.pools.get(fp)?.listStale(method) ?? false;
  }

  /** How long the pool's cached list stays fresh (see Pool.listFreshForMs); undefined without a TTL or a pool. */
  listFreshForMs(fp: string, method: CachedList): number | undefined {
    return this.pools.get(fp)?.listFreshForMs(method);
  }

  /** Cached `tools` only: never starts anything. */
  cachedTools(fp: string): DownstreamTool[] | undefined {
    return this.pools.get(fp)?.meta.tools;
  }

  /**
   * A list restored from disk, while no instance has run to list it again (see MetadataCache.listsRestored):
   * what a listing serves without starting the server.
   */
  savedList(fp: string, method: SavedList): JsonObject[] | undefined {
    const meta = this.pools.get(fp)?.meta;
    return meta?.listsRestored ? meta.lists[method] : undefined;
  }

  /** A list the core has just listed: kept with the tools, on disk too, for the next core's listings. */
  keepList(fp: string, method: SavedList, items: JsonObject[]): void {
    const meta = this.pools.get(fp)?.meta;
    if (!meta) return;
    meta.lists[method] = items;
    this.persistMetadata(fp);
  }

  /** Lists restored from disk are to be listed again (an instance of the spec started). */
  onListsToVerify(cb: (fp: string) => void): () => void {
    return this.hub.onListsToVerify(cb);
  }

  capabilities(fp: string): JsonObject | undefined {
    return this.pools.get(fp)?.meta.capabilities;
  }

  serverInfo(fp: string): JsonObject | undefined {
    return this.pools.get(fp)?.meta.serverInfo;
  }

  /** Caller routing keys a server→client request from this instance may belong to (see Pool.callersOf). */
  callersOf(instanceId: string): string[] {
    for (const p of [...this.pools.values(), ...this.closingPools]) {
      const keys = p.callersOf(instanceId);
      if (keys) return keys;
    }
    return [];
  }

  /** See Pool.lendSlot: the returned function ends the loan. */
  lendSlot(instanceId: string): () => void {
    for (const p of this.pools.values()) {
      const back = p.lendSlot(instanceId);
      if (back) return back;
    }
    return () => undefined;
  }

  /**
   * A server asked a client from this instance: its pool gives each call an instance of its own from now
   * on, and the instance counts as waiting on its client until the returned function is called.
   */
  clientAsked(instanceId: string): () => void {
    for (const p of this.pools.values()) {
      const done = p.clientAsked(instanceId);
      if (done) return done;
    }
    return () => {};
  }

  /** Sends a client notification to every running instance of the given pools; returns how many got it. */
  notifyServers(fingerprints: Iterable<string>, method: string, params: JsonObject): number {
    let n = 0;
    for (const fp of fingerprints) n += this.pools.get(fp)?.notifyInstances(method, params) ?? 0;
    return n;
  }

  /**
   * Holds `key` on one instance of the pool, whatever its strategy: requests with this routing key
   * all go to the instance the first of them landed on, which is not idle-reaped while pinned.
   * Reference-counted: each pin() needs its unpin(). Throws NOT_FOUND for an unknown pool.
   */
  pin(fp: string, key: string): void {
    this.pool(fp).pin(key);
  }

  /** See Pool.pinnedRequest. */
  pinnedRequest(fp: string, key: string, method: string, params: JsonObject, timeoutMs: number): Promise<JsonObject> {
    return this.pool(fp).pinnedRequest(key, method, params, timeoutMs);
  }

  /** See Pool.pinnedInstance. */
  pinnedInstance(fp: string, key: string): string | undefined {
    return this.pools.get(fp)?.pinnedInstance(key);
  }

  /** Releases one pin() of `key`; the last one lets its instance be reaped again. Unknown pools: no-op. */
  unpin(fp: string, key: string): void {
    this.pools.get(fp)?.unpin(key);
  }

  /** A caller's call ended unanswered on an instance (see PoolEvents.callAbandoned). */
  onCallAbandoned(cb: (fp: string, instanceId: string, key: string) => void): () => void {
    return this.hub.onCallAbandoned(cb);
  }

  /** The instance a pinned key was on ended (crash, hung, removal): whatever it held there is gone. */
  onPinLost(cb: (fp: string, key: string) => void): () => void {
    return this.hub.onPinLost(cb);
  }

  resume(fp: string): void {
    this.pool(fp).resume();
  }

  restartInstance(fp: string, instanceId: string): Promise<void> {
    return this.pool(fp).restartInstance(instanceId);
  }

  /** Waits for the pool's starts and stops in progress (a restart's replacement among them); a pool gone is settled. */
  settlePool(fp: string): Promise<void> {
    return this.pools.get(fp)?.settle() ?? Promise.resolve();
  }

  stopPool(fp: string): Promise<void> {
    return this.pool(fp).stopInstances();
  }

  onNotification(cb: NotificationListener): () => void {
    return this.hub.onNotification(cb);
  }

  onStderr(cb: StderrListener): () => void {
    return this.hub.onStderr(cb);
  }

  onToolsChanged(cb: (fp: string) => void): () => void {
    return this.hub.onToolsChanged(cb);
  }

  /** Coalesced: a burst of changes gives one callback; read status() in it. */
  onStatusChange(cb: () => void): () => void {
    return this.hub.onStatusChange(cb);
  }

  status(): PoolStatus[] {
    return [...this.pools.values()].map((p) => p.status()).sort((a, b) => a.fingerprint.localeCompare(b.fingerprint));
  }

  /** Instances that hold (or are starting) a server, across pools, removed pools still stopping included. */
  processCount(): number {
    let n = 0;
    for (const p of this.pools.values()) n += p.instanceCount();
    for (const p of this.closingPools) n += p.instanceCount();
    return n;
  }

  /** Stops everything (cause 'shutdown') and waits until every process is reaped. */
  async shutdown(): Promise<void> {
    this.down = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all([...pools.map((p) => this.trackClose(p.close('shutdown', 'the runtime is shutting down'), p)), ...this.closing]);
    this.hub.statusChanged();
  }

  private trackClose(p: Promise<void>, pool?: Pool): Promise<void> {
    if (pool) this.closingPools.add(pool);
    const t = p.finally(() => {
      this.closing.delete(t);
      if (pool) this.closingPools.delete(pool);
    });
    this.closing.add(t);
    return t;
  }

  private pool(fp: string): Pool {
    const pool = this.pools.get(fp);
    if (pool) return pool;
    if (this.down) throw new McpdError('UNAVAILABLE', 'the runtime is shutting down');
    throw new PoolGoneError(fp);
  }

  /** A pool's tools or lists changed (first listing, list_changed, a restart that found them different): keep them for the next core. */
  private persistMetadata(fp: string): void {
    const saved = this.pools.get(fp)?.savedMetadata();
    if (saved) this.opts.metadataStore?.save(fp, saved);
  }
}

/** A call that ended before it began has nothing to cancel. */
const NOTHING_TO_CANCEL: StartedCall = { cancel: () => {} };
