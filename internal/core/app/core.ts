import { pendingFailures } from './listing-budget.js';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type {
  CallOptions,
  CallerMeta,
  CallerSession,
  CoreInfo,
  ReloadOutcome,
  StatusView,
  StopOutcome,
  Subscription,
  ToolPage,
} from '../../contract/control/control.js';
import type { PromptsApi, ResourcesApi } from '../../contract/control/control-areas.js';
import type { CallDone, StartedCall } from '../../contract/model/downstream.js';
import type { JsonObject } from '../../shared/json.js';
import { profileFor } from '../../contract/model/profile.js';
import type { ToolSnapshot } from '../../contract/model/tool.js';
import { cappedInterval } from '../../shared/timer-limit.js';
import { CallerHistories } from '../domain/history/tool-call-history.js';
import { CallGate } from './call-gate.js';
import { CallerRegistry, pidAlive } from './caller-registry.js';
import { CallerViews } from './caller-views.js';
import { toolViewOf, viewProfileName } from './caller-naming.js';
import type { ClientRequests } from './client-requests.js';
import type { ContextService } from './context-service.js';
import { contextToolEntries, FINDER_TOOL } from './context-entries.js';
import { ContextSurface, withContextChannels } from './context-surface.js';
import { CoreStatus } from './core-status.js';
import { CoreStop, type CoreStopOutcome } from './core-stop.js';
import { wireAreas, wireTools, type Areas, type CoreOptions } from './core-wiring.js';
import type { LogService } from './log-service.js';
import { SmcpComputers } from './smcp-computers.js';
import { StoreReloads } from './store-reloads.js';
import { TaskHost } from './tasks/task-host.js';
import { passthroughTasks } from './tasks/passthrough-wiring.js';
import { TaskJournal } from '../infra/tasks/task-journal.js';
import { ToolCalls } from './tool-calls.js';
import { ServerRestarts } from './server-restarts.js';
import { viaPromise } from '../domain/call-adapters.js';
import type { CallNote } from './door/interceptor.js';
import type { ToolService } from './tool-service.js';

export type { CoreOptions } from './core-wiring.js';

/** A listing slower than this because servers had to start is worth a line in the log. */
const SLOW_LISTING_MS = 500;

/**
 * The control plane's use cases: caller-aware listing and calling, status, reload, stop. The work is done
 * by the parts it composes — ToolCalls, StoreReloads, CoreStatus, CoreStop and the area services wired in
 * core-wiring.ts. Faces never get it: they get the door (door/door.ts), which passes every call through
 * the interceptors (the stop's gate among them) to these use cases.
 */
export class Core {
  private readonly coreId = randomUUID();
  private readonly startedAt = Date.now();
  private readonly callers = new CallerRegistry();
  readonly tools: ToolService;
  /** Per-caller views, so a caller moved to another profile by a reload sees the new list. */
  private readonly callerViews = new CallerViews<ToolSnapshot>(
    (caller) => this.snapshotOf(this.toolViewOf(caller)),
    // A watch's first snapshot comes within the listing budget, like a listing: what arrives later is a change.
    (caller) => this.tools.loadWithin(this.toolViewOf(caller)),
  );
  private reaper?: NodeJS.Timeout;
  readonly history = new CallerHistories();
  /** Resources (with the context channels) and prompts; the door gates their reads, prompts and completions. */
  readonly resources: ResourcesApi;
  readonly prompts: PromptsApi;
  readonly logs: LogService;
  readonly context: ContextService;
  readonly clientRequests: ClientRequests;
  /** Tasks hosted for task-supporting tools (SEP-2663); faces reach them through the door's view. */
  readonly tasks: TaskHost;
  /** Operator actions on the servers' pools (`mcpdctl restart`); faces reach them through the door. */
  readonly servers: ServerRestarts;
  /** runtime.yaml `smcp:`: this core as A2C-SMCP Computers. */
  readonly smcp: SmcpComputers;
  /** Admission of calls: closed by a stop, which then waits for the calls in flight. */
  readonly calls = new CallGate(() => `the mcpd core (pid ${process.pid}) is stopping`);
  private readonly statusView: CoreStatus;
  private readonly reloads: StoreReloads;
  private readonly toolCalls: ToolCalls;
  private readonly stopping: CoreStop;
  /** The area services behind the gated surface (reloads and the stop reach them directly). */
  private readonly areas: Areas;
  /** The context channels as resources and the Finder's tool, in every face's lists and calls. */
  private readonly contextSurface: ContextSurface;

  constructor(private readonly o: CoreOptions) {
    this.tools = wireTools(o);
    this.statusView = new CoreStatus({
      store: o.store,
      pools: o.pools,
      callers: this.callers,
      tools: this.tools,
      calls: this.calls,
      smcpStatus: () => this.smcp.status(),
      policyQuotas: () => o.policyQuotas?.() ?? [],
    });
    this.tools.onChange((view) => this.callerViews.refresh((caller) => this.toolViewOf(caller) === view));
    o.pools.onStatusChange(() => this.publishStatus());
    // Built before the areas, which retry requests that raced a reload (prompts, resource reads) with it.
    this.reloads = new StoreReloads(o.pools, o.store, this.tools, {
      resources: { applyStore: () => this.areas.resources.applyStore() },
      prompts: { applyStore: () => this.areas.prompts.applyStore() },
      remapCallers: () => this.callers.remap((c) => this.profileOf(c)),
      refreshViews: () => {
        this.callerViews.refresh();
        return this.callerViews.watched();
      },
      applySmcp: () => this.smcp.apply(o.store.current.smcp),
      profileOf: (caller) => this.profileOf(caller),
      publishStatus: () => this.publishStatus(),
    });
    const areas = (this.areas = wireAreas(o, this.tools, this.history, this.reloads));
    this.contextSurface = new ContextSurface(areas.context);
    this.resources = withContextChannels(areas.resources, this.contextSurface);
    this.prompts = areas.prompts;
    this.logs = areas.logs;
    this.context = areas.context;
    this.clientRequests = areas.clientRequests;
    this.tasks = new TaskHost({
      findTool: (caller, name) => this.tools.index(this.toolViewOf(caller)).find(name),
      loadTools: (caller) => this.tools.loadWithin(this.toolViewOf(caller)),
      clientRequests: this.clientRequests,
      log: o.log,
      journal: o.stateDir ? new TaskJournal(join(o.stateDir, 'tasks'), (msg, fields) => o.log('warning', msg, fields)) : undefined,
      passthrough: passthroughTasks(o.pools, this.clientRequests, o.log),
    });
    this.servers = new ServerRestarts(o.pools);
    const profileOf = (caller: string) => profileFor(o.store.current, caller);
    this.smcp = new SmcpComputers({ api: () => o.smcpFace(), profileOf, log: o.log, onStatus: () => this.publishStatus() });
    this.toolCalls = new ToolCalls({
      pools: o.pools,
      store: o.store,
      tools: this.tools,
      reloads: this.reloads,
      // Tool names are per caller (its own reserve): calls resolve them in the caller's view.
      profileOf: (caller) => this.toolViewOf(caller),
    });
    this.stopping = new CoreStop({
      calls: this.calls,
      store: o.store,
      pools: o.pools,
      log: o.log,
      publishStatus: () => this.publishStatus(),
      requestStop: o.requestStop,
      closers: [
        () => clearInterval(this.reaper),
        () => this.tasks.failRunning(`the mcpd core (pid ${process.pid}) stopped while the task ran; call the tool again`),
        () => this.smcp.close(),
        () => areas.subscriptions.shutdown(),
        () => this.callerViews.close(),
        () => areas.resources.close(),
        () => areas.prompts.close(),
        () => this.context.close(),
        () => this.statusView.close(),
      ],
    });
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

  stop(): Promise<void> {
    return this.stopping.shutdown();
  }

  /**
   * The first step of a graceful stop: refuse new calls and say so in the status (watchers see
   * `stopping` at once). Returns what the stop found; the caller then drains `calls`.
   */
  beginStop(): CoreStopOutcome {
    return this.stopping.begin();
  }

  requestStop(): StopOutcome {
    return { ...this.stopping.request(), gatewayPids: this.callers.pids() };
  }

  /** Drains the calls in flight (after `beginStop`), logging those cut off by the grace period. */
  drainCalls(): Promise<void> {
    return this.stopping.drain();
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
    const profile = this.toolViewOf(caller);
    // A continuation page comes from a pinned snapshot: loading must not block it.
    const pending = cursor ? [] : await this.waitForListing(caller, profile);
    const idx = this.tools.index(profile);
    const page = idx.list(cursor, pageSize ?? this.o.store.current.runtime.pageSize);
    const snap = idx.snapshotAt(page.etag) ?? idx.snapshot();
    const failures = cursor ? undefined : [...pendingFailures(pending, this.tools.listingBudget.ms), ...this.tools.failureList(profile)];
    // The Finder's tool comes first on the first page where the caller's servers give it documents.
    const tools = cursor ? page.items : [...contextToolEntries(await this.resources.channels(caller)), ...page.items];
    const freshForMs = this.tools.freshForMs(profile);
    return { etag: page.etag, tools, nextCursor: page.nextCursor, collisions: snap.collisions, failures, pending, freshForMs };
  }

  /**
   * Loads the profile's tool lists within the listing budget; returns the servers still starting then.
   * A wait for servers to start is logged with who and how long (it can take seconds).
   */
  private async waitForListing(caller: string, view: string): Promise<string[]> {
    const t0 = Date.now();
    const { waited, pending } = await this.tools.loadWithin(view);
    const profile = viewProfileName(view);
    const ms = Date.now() - t0;
    if (waited.length > 0 && ms >= SLOW_LISTING_MS)
      this.o.log('info', `first listing waited ${ms} ms for servers to start: ${waited.join(', ')}`, {
        caller,
        profile,
        ms,
        servers: waited,
      });
    if (pending.length > 0)
      this.o.log('info', `listing answered without servers still starting: ${pending.join(', ')}`, {
        caller,
        profile,
        ms,
        servers: pending,
      });
    return pending;
  }

  /** The profile's tool snapshot, naming the servers whose tools are still being listed. */
  private snapshotOf(profile: string): ToolSnapshot {
    const snap = this.tools.index(profile).snapshot();
    const loading = this.tools.unlistedServers(profile);
    return loading.length > 0 ? { ...snap, loading } : snap;
  }

  watchTools(caller: string, lastEtag?: string): Subscription<ToolSnapshot> {
    return this.callerViews.watch(caller, lastEtag);
  }

  /**
   * A tool call (decision 46): `done` hears its end. The Finder's tool is answered here; every other goes
   * to its server on ToolCalls' one path. `note` tells the door what the call reached.
   */
  toolCall(caller: string, name: string, args: JsonObject, opts: CallOptions, note: CallNote, done: CallDone): StartedCall {
    if (name === FINDER_TOOL) return viaPromise(() => this.contextSurface.callFinder(caller, args), done);
    return this.toolCalls.toolCall(caller, name, args, opts, note, done);
  }

  status(): StatusView {
    return this.statusView.view();
  }

  /** Open tool and status watches (a gauge in the metrics). */
  watchSubscribers(): number {
    return this.statusView.subscriberCount + this.callerViews.subscriberCount;
  }

  watchStatus(): Subscription<StatusView> {
    return this.statusView.watch();
  }

  reload(): Promise<ReloadOutcome> {
    return this.reloads.reload();
  }

  /** After the store changed (reload RPC or file watcher): pools, indexes, caller views. */
  applyStore(opts: { resumeSuspended?: boolean } = {}): Promise<void> {
    return this.reloads.apply(opts);
  }

  private profileOf(caller: string): string {
    return profileFor(this.o.store.current, caller).name;
  }

  /** The caller's tool view: its profile, named for its own reserve when callers.yaml gives one. */
  private toolViewOf(caller: string): string {
    return toolViewOf(this.o.store.current, caller);
  }

  /** Status watchers (mcpdctl, the dashboard) see a change: also called when an edit of the store is rejected. */
  publishStatus(): void {
    this.statusView.publish();
  }
}
