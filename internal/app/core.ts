import { randomUUID } from 'node:crypto';
import { secretRedactor } from '../domain/redactor.js';
import type {
  CallOptions,
  CallerMeta,
  CallerSession,
  ControlApi,
  CoreInfo,
  ReloadOutcome,
  StatusView,
  StopOutcome,
  Subscription,
  ToolPage,
} from '../domain/control.js';
import { formatIssue, McpdError } from '../domain/errors.js';
import type { CallerStatusRow } from '../domain/runtime.js';
import { toolListTokens } from '../domain/tool-tokens.js';
import type { JsonObject } from '../domain/json.js';
import { profileFor } from '../domain/profile.js';
import type { ToolEntry, ToolSnapshot } from '../domain/tool.js';
import { LatestWins } from '../domain/aggregator/latest-wins.js';
import { CallerRegistry, pidAlive } from './caller-registry.js';
import type { PoolPort } from './pool-port.js';
import { ToolService } from './tool-service.js';
import { StoreState } from './store-state.js';
import { CallerHistories } from '../domain/history/tool-call-history.js';
import type { AreaDeps } from './area-deps.js';
import { ContextService } from './context-service.js';
import { ClientRequests } from './client-requests.js';
import { LogService, type LogTelemetry } from './log-service.js';
import { PromptService } from './prompt-service.js';
import { ResourceService } from './resource-service.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { CallerViews } from './caller-views.js';
import { cappedInterval } from '../domain/timer-limit.js';
import { CallGate } from './call-gate.js';
import { PoolGoneError } from '../infra/scheduler/index.js';
import { SmcpComputers } from './smcp-computers.js';
import { isSearchModeTool, toolError, ToolSearchCalls } from './tool-search-calls.js';
import { SEARCH_TOOL } from '../domain/aggregator/tool-search-view.js';

/** A listing slower than this because servers had to start is worth a line in the log. */
const SLOW_LISTING_MS = 500;

export interface CoreOptions {
  version: string;
  socket: string;
  pools: PoolPort;
  store: StoreState;
  log: (level: 'debug' | 'info' | 'warning' | 'error', event: string, fields?: Record<string, unknown>) => void;
  /** The log bus `log` is teed into; absent = the log service keeps a private one. */
  telemetry?: LogTelemetry;
  /** Runs the process's graceful stop (the Stop RPC asks for it); absent = only `beginStop` happens. */
  requestStop?: () => void;
}

/** Attempts of a call whose pool a reload removed meanwhile (each after that reload is applied). */
const POOL_GONE_ATTEMPTS = 4;

/** Errors of calls that reached the pool: never retried as "raced a reload" (the server may have run them). */
const reachedPool = new WeakSet<object>();
function markDispatched(e: unknown): unknown {
  if (typeof e === 'object' && e !== null && !(e instanceof PoolGoneError)) reachedPool.add(e);
  return e;
}
function dispatched(e: object): boolean {
  return reachedPool.has(e);
}

/**
 * Reloads kept replacing the spec of the tool's server while the call resolved it: nothing reached a
 * server, and it is the configuration changing (not the caller's arguments) that is to blame.
 */
function reloadRaceError(name: string, attempts: number, e: unknown): McpdError {
  const why = e instanceof Error ? e.message : String(e);
  return new McpdError(
    'UNAVAILABLE',
    `tool "${name}" could not be resolved: the configuration changed (reload) while the call resolved it, ${attempts} times in a row; ` +
      `nothing was sent to a server. Retry once the edits settle (last error: ${why})`,
  );
}

/** The control plane's use cases: caller-aware listing and calling, status, reload. */
export class Core implements ControlApi {
  private readonly coreId = randomUUID();
  private readonly startedAt = Date.now();
  private readonly callers = new CallerRegistry();
  readonly tools: ToolService;
  /** Per-caller views, so a caller moved to another profile by a reload sees the new list. */
  private readonly callerViews = new CallerViews<ToolSnapshot>(
    (caller) => this.tools.index(this.profileOf(caller)).snapshot(),
    (caller) => this.tools.ensureLoaded(this.profileOf(caller)),
  );
  private readonly statusChannel = new LatestWins<StatusView>();
  private reaper?: NodeJS.Timeout;
  private readonly subscriptions: ResourceSubscriptions;
  readonly history = new CallerHistories();
  readonly resources: ResourceService;
  readonly prompts: PromptService;
  readonly logs: LogService;
  readonly context: ContextService;
  readonly clientRequests: ClientRequests;
  /** runtime.yaml `smcp:`: this core as A2C-SMCP Computers. */
  readonly smcp: SmcpComputers;
  private callSeq = 0;
  /** The store application under way (or the last one, settled), and how many have begun. */
  private applying: Promise<void> = Promise.resolve();
  private applyGeneration = 0;
  /** Applications begun and not finished: until one is, the tool index can still name pools it removed. */
  private appliesInFlight = 0;
  /** Admission of calls: closed by a stop, which then waits for the calls in flight. */
  readonly calls = new CallGate(() => `the mcpd core (pid ${process.pid}) is stopping`);
  private readonly toolSearch = new ToolSearchCalls();

  constructor(private readonly o: CoreOptions) {
    this.tools = new ToolService(o.pools, o.store.current.runtime.snapshotRetentionSeconds, (msg, fields) => o.log('warning', msg, fields));
    this.tools.applyStore(o.store.current);
    this.tools.onChange((profile) => this.callerViews.refresh((caller) => this.profileOf(caller) === profile));
    // Fire-and-forget: the tool cache's loads never reject: a failed listing is recorded and logged.
    o.pools.onToolsChanged((fp) => void this.tools.invalidate(fp));
    o.pools.onStatusChange(() => this.publishStatus());
    const deps: AreaDeps = {
      pools: o.pools,
      store: o.store,
      tools: this.tools,
      history: this.history,
      profileOf: (caller) => profileFor(o.store.current, caller),
      log: o.log,
    };
    // One hub of downstream subscriptions for resources/subscribe callers and the context channels alike.
    const subscriptions = (this.subscriptions = new ResourceSubscriptions(o.pools, o.log));
    this.resources = new ResourceService(deps, subscriptions);
    this.prompts = new PromptService(deps, this.resources);
    // Downstream stderr and notifications/message become log entries there, attributed to the server.
    this.logs = new LogService(deps, o.telemetry);
    this.context = new ContextService(deps, subscriptions);
    this.clientRequests = new ClientRequests({
      callersOf: (instanceId) => o.pools.callersOf?.(instanceId) ?? [],
      notifyServers: (fps, method, params) => o.pools.notifyServers?.(fps, method, params) ?? 0,
      fingerprintsOf: (caller) => this.fingerprintsOf(this.profileOf(caller)),
      log: o.log,
    });
    this.smcp = new SmcpComputers({ api: this, profileOf: deps.profileOf, log: o.log, onStatus: () => this.publishStatus() });
  }

  /** Starts pools for the loaded store and the dead-gateway reaper. */
  async start(): Promise<void> {
    await this.o.pools.reconcile(this.o.store.specs());
    this.tools.prime();
    this.reaper = cappedInterval(() => {
      if (this.callers.reapDead(pidAlive) > 0) this.publishStatus();
    }, 2000);
    this.reaper.unref();
    this.smcp.apply(this.o.store.current.smcp);
  }

  async stop(): Promise<void> {
    clearInterval(this.reaper);
    this.smcp.close();
    this.subscriptions.shutdown();
    this.callerViews.close();
    this.resources.close();
    this.prompts.close();
    this.context.close();
    this.statusChannel.close();
    await this.o.pools.shutdown();
  }

  /**
   * The first step of a graceful stop: refuse new calls and say so in the status (watchers see
   * `stopping` at once). Returns what the stop found; the caller then drains `calls`.
   */
  beginStop(): StopOutcome {
    const graceSeconds = this.o.store.current.runtime.shutdownGraceSeconds;
    const started = this.calls.close(graceSeconds * 1000);
    const outcome = { inFlightCalls: this.calls.inFlight, graceSeconds, pid: process.pid, started };
    if (started) {
      this.o.log('info', 'core stopping: new calls are refused, calls in flight may finish', {
        inFlightCalls: outcome.inFlightCalls,
        graceSeconds,
      });
      this.publishStatus();
    }
    return outcome;
  }

  requestStop(): StopOutcome {
    const outcome = this.beginStop();
    this.o.requestStop?.();
    return outcome;
  }

  /** Drains the calls in flight (after `beginStop`), logging those cut off by the grace period. */
  async drainCalls(): Promise<void> {
    const { cancelled } = await this.calls.drain();
    if (cancelled > 0) this.o.log('warning', 'calls cancelled at the end of the shutdown grace period', { cancelled });
    this.publishStatus();
  }

  info(): CoreInfo {
    return {
      version: this.o.version,
      pid: process.pid,
      configDir: this.o.store.current.dir,
      socket: this.o.socket,
      startedAt: this.startedAt,
      coreId: this.coreId,
      profiles: [...this.o.store.current.profiles.keys()].sort(),
      callers: Object.fromEntries(this.o.store.current.callers),
    };
  }

  registerCaller(caller: string, meta: CallerMeta): CallerSession {
    const profile = this.profileOf(caller);
    const s = this.callers.register(caller, profile, meta);
    this.o.log('info', 'caller attached', { caller, profile, session: s.id, pid: meta.pid, client: meta.clientName });
    // Listing should be instant when the client asks: fill the metadata cache now.
    void this.tools.ensureLoaded(profile);
    this.publishStatus();
    return s;
  }

  unregisterCaller(sessionId: string): void {
    const caller = this.callers.unregister(sessionId);
    if (caller !== undefined) {
      // `caller` scopes the event: a session id is only ever shown to the caller it belongs to.
      this.o.log('info', 'caller detached', { caller, session: sessionId });
      this.publishStatus();
    }
  }

  async listTools(caller: string, cursor?: string, pageSize?: number): Promise<ToolPage> {
    const profile = this.profileOf(caller);
    // A continuation page comes from a pinned snapshot: loading must not block it.
    if (!cursor) await this.waitForListing(caller, profile);
    const idx = this.tools.index(profile);
    const page = idx.list(cursor, pageSize ?? this.o.store.current.runtime.pageSize);
    const snap = idx.snapshotAt(page.etag) ?? idx.snapshot();
    const failures = cursor ? undefined : this.tools.failureList(profile);
    return { etag: page.etag, tools: page.items, nextCursor: page.nextCursor, collisions: snap.collisions, failures };
  }

  /** Loads the profile's tool lists; a wait for servers to start is logged with who and how long (it can take seconds). */
  private async waitForListing(caller: string, profile: string): Promise<void> {
    const t0 = Date.now();
    const waited = await this.tools.ensureLoaded(profile);
    const ms = Date.now() - t0;
    if (waited.length > 0 && ms >= SLOW_LISTING_MS)
      this.o.log('info', `first listing waited ${ms} ms for servers to start: ${waited.join(', ')}`, {
        caller,
        profile,
        ms,
        servers: waited,
      });
  }

  watchTools(caller: string, lastEtag?: string): Subscription<ToolSnapshot> {
    return this.callerViews.watch(caller, lastEtag);
  }

  /** Every tool call, whichever way it came (Session, gRPC, SMCP, dashboard), passes the stop's gate. */
  callTool(caller: string, name: string, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    return this.calls.run('tools/call', opts.signal, (signal) => this.callAdmittedTool(caller, name, args, { ...opts, signal }));
  }

  /**
   * A reload can replace the tool's server spec while a call resolves it: its pool is gone, or the
   * name is briefly unknown while the new spec is listed (nothing reached a server either way). Such
   * a call waits for the reload to be applied and resolves the name again — a few times at most
   * while edits keep coming — so it is answered against the configuration after the reload.
   */
  private async callAdmittedTool(caller: string, name: string, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= POOL_GONE_ATTEMPTS;
      const generation = this.applyGeneration;
      // A call that starts while a reload is being applied resolves against the index of the old
      // store, whose pools that reload already removed: it raced the reload as much as one overtaken by it.
      const settled = this.appliesInFlight === 0;
      try {
        return await this.callResolvedTool(caller, name, args, opts, last);
      } catch (e) {
        const raced =
          e instanceof PoolGoneError ||
          (e instanceof McpdError && e.reason === 'NOT_FOUND' && !dispatched(e) && (!settled || this.applyGeneration !== generation));
        if (!raced) throw e;
        if (last) throw reloadRaceError(name, attempt, e);
        await this.applying;
      }
    }
  }

  private async callResolvedTool(caller: string, name: string, args: JsonObject, opts: CallOptions, last: boolean): Promise<JsonObject> {
    const profile = this.profileOf(caller);
    await this.tools.ensureLoaded(profile);
    const entry = await this.resolveTool(profile, name);
    if (isSearchModeTool(entry)) return this.searchModeCall(caller, profile, entry, args, opts);
    const record = {
      timestamp: new Date().toISOString(),
      req_id: `${++this.callSeq}`,
      server: entry.server,
      tool: entry.downstreamName,
      parameters: args,
      timeout: opts.timeoutMs ?? null,
    };
    try {
      const result = await this.o.pools.callTool(entry.fingerprint, entry.downstreamName, args, opts);
      this.history.record(caller, { ...record, success: result.isError !== true, error: null });
      return result;
    } catch (e) {
      // An attempt that will be retried on the new pool is not part of the caller's history.
      if (last || !(e instanceof PoolGoneError)) {
        this.history.record(caller, { ...record, success: false, error: e instanceof Error ? e.message : String(e) });
      }
      throw markDispatched(e);
    }
  }

  /** The search tool is answered here; the call tool becomes a call of the tool it names. */
  private searchModeCall(caller: string, profile: string, entry: ToolEntry, args: JsonObject, opts: CallOptions): Promise<JsonObject> {
    const settings = this.o.store.current.profiles.get(profile)?.toolSearch;
    const snapshot = this.tools.index(profile).snapshot();
    if (!settings) return Promise.resolve(toolError(`profile "${profile}" is not in tool search mode any more; list the tools again`));
    if (entry.name === SEARCH_TOOL) return Promise.resolve(this.toolSearch.search(snapshot, settings, args));
    const asked = this.toolSearch.target(args);
    if ('error' in asked) return Promise.resolve(asked.error);
    return this.callAdmittedTool(caller, asked.target.name, asked.target.arguments, opts);
  }

  /**
   * A call is explicit demand: when the name is unknown and some server of the profile could not be
   * listed, try those servers again before answering, and say which ones failed.
   */
  private async resolveTool(profile: string, name: string): Promise<ToolEntry> {
    const idx = this.tools.index(profile);
    try {
      return idx.resolve(name);
    } catch (e) {
      if (this.tools.failuresFor(profile).length === 0) throw e;
      await this.tools.ensureLoaded(profile, { retryFailed: true });
      try {
        return idx.resolve(name);
      } catch (again) {
        const failed = this.tools.failuresFor(profile);
        if (failed.length === 0 || !(again instanceof McpdError)) throw again;
        throw new McpdError(again.reason, `${again.message}; servers that could not be listed: ${failed.join('; ')}`);
      }
    }
  }

  status(): StatusView {
    // Last errors and config issues can quote a server's output or a URL: mask every known secret.
    return secretRedactor.value({
      configDir: this.o.store.current.dir,
      configIssues: this.o.store.lastIssues.map(formatIssue),
      pools: this.o.store.redactPools(this.o.pools.status()),
      callers: this.callers.summary().map((row) => ({ ...row, ...this.toolCosts(row.profile) })),
      stopping: this.calls.closed,
      inFlightCalls: this.calls.inFlight,
      stopDeadline: this.calls.stopDeadline,
      smcpComputers: this.smcp.status(),
    });
  }

  /** Tool counts and estimated tokens of what a profile's callers are given (and of the catalog in search mode). */
  private toolCosts(profile: string): Partial<CallerStatusRow> {
    let snap: ToolSnapshot;
    try {
      snap = this.tools.index(profile).snapshot();
    } catch {
      return {};
    }
    const listed = { toolCount: snap.tools.length, toolTokens: toolListTokens(snap.tools) };
    return snap.catalog ? { ...listed, catalogCount: snap.catalog.length, catalogTokens: toolListTokens(snap.catalog) } : listed;
  }

  /** Open tool and status watches (a gauge in the metrics). */
  watchSubscribers(): number {
    let n = this.statusChannel.subscriberCount;
    n += this.callerViews.subscriberCount;
    return n;
  }

  watchStatus(): Subscription<StatusView> {
    if (this.statusChannel.current() === undefined) this.statusChannel.publish(this.status());
    return this.statusChannel.subscribe();
  }

  async reload(): Promise<ReloadOutcome> {
    const r = await this.o.store.reload();
    // An explicit reload is also how a user says "try the suspended servers again".
    if (r.applied) await this.applyStore({ resumeSuspended: true });
    this.publishStatus();
    return r;
  }

  /** After the store changed (reload RPC or file watcher): pools, indexes, caller views. */
  async applyStore(opts: { resumeSuspended?: boolean } = {}): Promise<void> {
    this.applyGeneration++;
    this.appliesInFlight++;
    const run = this.applyStoreNow(opts).finally(() => this.appliesInFlight--);
    // A call that lost its pool to this reload waits for it (and for any earlier one still running,
    // as the file watcher does not wait for one to end) before resolving its tool again. A rejection is
    // dropped here: the reload's own caller gets it through `run`; waiters only need it settled.
    const earlier = this.applying;
    this.applying = run.then(
      () => earlier,
      () => earlier,
    );
    return run;
  }

  private async applyStoreNow(opts: { resumeSuspended?: boolean }): Promise<void> {
    // Reconcile swaps the pools at once and then waits for the removed ones to stop (seconds under
    // load, and it can fail). The indexes follow the swap without that wait: until they do, a call
    // resolves its tool to a pool this reload already removed.
    const stopped = this.o.pools.reconcile(this.o.store.specs(), opts);
    this.tools.applyStore(this.o.store.current);
    this.resources.applyStore();
    this.prompts.applyStore();
    this.callers.remap((c) => this.profileOf(c));
    this.callerViews.refresh();
    // Fire-and-forget: the tool cache's loads never reject: a failed listing is recorded and logged.
    for (const caller of this.callerViews.watched()) void this.tools.ensureLoaded(this.profileOf(caller));
    this.smcp.apply(this.o.store.current.smcp);
    await stopped;
  }

  /** Pools that serve a profile (a spec's references are "profile/server"). */
  private fingerprintsOf(profile: string): string[] {
    return [...this.o.store.specs()].filter(([, ref]) => ref.references.some((r) => r.startsWith(`${profile}/`))).map(([fp]) => fp);
  }

  private profileOf(caller: string): string {
    return profileFor(this.o.store.current, caller).name;
  }

  /** Status watchers (mcpdctl, the dashboard) see a change: also called when an edit of the store is rejected. */
  publishStatus(): void {
    if (this.statusChannel.subscriberCount > 0) this.statusChannel.publish(this.status());
  }
}
