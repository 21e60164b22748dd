import type { CallDone, DownstreamSession, StartedCall } from '../../../contract/model/downstream.js';
import { isMcpdError, McpdError } from '../../../shared/errors.js';
import { needsSignIn } from '../../../contract/model/sign-in.js';
import type { JsonObject } from '../../../shared/json.js';
import type { PoolStatus, StartCause, StopCause } from '../../../contract/model/runtime.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import type { DownstreamTool } from '../../../contract/model/tool.js';
import { Admission } from './admission.js';
import { ClientQuestions } from './client-questions.js';
import { IdleReaper } from './idle-reaper.js';
import type { CallEnd, Instance } from './instance.js';
import { InstanceLifecycle } from './instance-lifecycle.js';
import { InstanceSet } from './instance-set.js';
import { KeyRouting } from './key-routing.js';
import { ListFreshness, type CachedList } from './list-freshness.js';
import { Liveness } from './liveness.js';
import type { MetadataCache } from './metadata-cache.js';
import type { SavedMetadata } from './metadata-store.js';
import { PoolHealth } from './pool-health.js';
import { PoolScope } from './pool-scope.js';
import { RestartScheduler } from './restart-scheduler.js';
import { ServerTraffic } from './server-traffic.js';
import { endOf, ToolCallLane } from './tool-call-lane.js';
import { ToolListing } from './tool-listing.js';
import type { CallOptions, PoolDeps } from './types.js';

/**
 * A fingerprint-keyed pool, as the manager sees it. It only composes the parts, each owning its own
 * state: which instances run (InstanceLifecycle, IdleReaper, RestartScheduler, PoolHealth), where a
 * call goes (KeyRouting), who waits (Admission), a caller's tool call (ToolCallLane), hung detection
 * (Liveness), listings (ToolListing) and server→client traffic (ServerTraffic).
 */
export class Pool {
  private readonly scope: PoolScope;
  private readonly instances = new InstanceSet();
  private readonly health: PoolHealth;
  private readonly routing: KeyRouting;
  private readonly idle: IdleReaper;
  private readonly lifecycle: InstanceLifecycle;
  private readonly admission: Admission;
  private readonly questions: ClientQuestions;
  private readonly liveness: Liveness;
  private readonly listing: ToolListing;
  private readonly traffic: ServerTraffic;
  private readonly lane: ToolCallLane;
  /** How long each cached list stays fresh, from the caching hints on the pages last listed. */
  private readonly freshness = new ListFreshness();
  /** The MCP version the newest session spoke (status keeps it after the instances idle out). */
  private protocolVersion?: string;

  constructor(
    readonly fingerprint: string,
    spec: ServerSpec,
    public references: string[],
    deps: PoolDeps,
  ) {
    const scope = (this.scope = new PoolScope(fingerprint, spec, deps));
    const instances = this.instances;
    const health = (this.health = new PoolHealth(scope));
    const routing = (this.routing = new KeyRouting(scope, instances));
    // The parts below are built before the lifecycle they call back into: these closures reach it later.
    const stop = (inst: Instance, cause: StopCause) => this.lifecycle.stop(inst, cause);
    const idle = (this.idle = new IdleReaper(scope, instances, routing, stop));
    const restarts = new RestartScheduler(scope, instances, health, () => this.lifecycle.ensureWarm('restart'));
    const admission = (this.admission = new Admission(scope, instances, routing, idle, (cause) => this.lifecycle.start(cause)));
    this.questions = new ClientQuestions(scope, instances, admission);
    const listing = (this.listing = new ToolListing(
      scope,
      () => this.call({ forCache: true }, 'metadata', (s) => s.listTools({ onPage: this.pageSeen('tools/list', s) })),
      (s) => this.pageSeen('tools/list', s),
      () => this.listStale('tools/list'),
    ));
    this.lifecycle = new InstanceLifecycle(
      { scope, instances, health, routing, idle, restarts },
      {
        capacityChanged: () => admission.pump(),
        failWaiters: (err) => admission.failAll(err),
        attached: (inst, session) => listing.attached(inst, session),
        toolsChanged: (inst) => listing.refresh(inst),
        signInLost: (err) => this.signInLost(err),
      },
    );
    this.liveness = new Liveness(scope, instances, health, stop, (err) => this.signInLost(err));
    this.traffic = new ServerTraffic(scope, instances, routing);
    this.lane = new ToolCallLane({
      scope,
      admission,
      health,
      liveness: this.liveness,
      listing,
      abandoned: (inst) => this.abandoned(inst),
      signInLost: (err) => this.signInLost(err),
    });
    this.liveness.armPing();
  }

  get spec(): ServerSpec {
    return this.scope.spec;
  }

  /** A reload that keeps the fingerprint: only non-fingerprinted fields (the name) can differ. */
  set spec(spec: ServerSpec) {
    this.scope.spec = spec;
  }

  get meta(): MetadataCache {
    return this.listing.meta;
  }

  /** What the metadata store had for this spec. */
  restore(saved: SavedMetadata): void {
    this.listing.meta.restore(saved);
    if (saved.asksClient) this.scope.asksClient = true;
  }

  /** What goes to the metadata store (nothing before the tools were listed). */
  savedMetadata(): SavedMetadata | undefined {
    const saved = this.listing.meta.saved();
    return saved && this.scope.asksClient ? { ...saved, asksClient: true } : saved;
  }

  /** See ClientQuestions.asked. */
  clientAsked(instanceId: string): (() => void) | undefined {
    return this.questions.asked(instanceId);
  }

  /** Instances that hold (or are starting) a server process. */
  instanceCount(): number {
    return this.instances.size;
  }

  /**
   * Runs `fn` on an instance with a slot; the whole call, wait included, is bounded by the deadline.
   * A success clears the pool's last error (it is healthy again); a missing sign-in leaves it out of listings.
   */
  async call<T>(
    opts: CallOptions,
    cause: StartCause,
    fn: (s: DownstreamSession, timeoutMs: number, deadlineMs: number) => Promise<T>,
  ): Promise<T> {
    const mark = this.health.mark();
    try {
      const result = await this.callOnInstance(opts, cause, fn);
      this.health.recovered(mark);
      return result;
    } catch (err) {
      if (needsSignIn(err)) this.signInLost(err as McpdError);
      throw err;
    }
  }

  private async callOnInstance<T>(
    opts: CallOptions,
    cause: StartCause,
    fn: (s: DownstreamSession, timeoutMs: number, deadlineMs: number) => Promise<T>,
  ): Promise<T> {
    const budget = opts.timeoutMs ?? this.scope.spec.callTimeoutSeconds * 1000;
    const deadline = this.scope.now() + budget;
    const inst = await this.admission.acquire(opts, deadline, cause);
    const remaining = deadline - this.scope.now();
    // The core's own listing is no caller's call: it must not count among the keys a server request may belong to.
    const callEnded = opts.forCache ? noCaller : inst.callStarted(opts.routingKey, this.abandoned(inst));
    let ended: CallEnd = 'answered';
    try {
      return await fn(inst.session as DownstreamSession, remaining, budget);
    } catch (err) {
      // Only a request that was actually sent and went unanswered says anything about the server.
      if (remaining > 0 && isMcpdError(err) && err.reason === 'DEADLINE_EXCEEDED') this.liveness.probe(inst);
      ended = endOf(err);
      throw err;
    } finally {
      callEnded(ended);
      this.admission.release(inst);
    }
  }

  /**
   * What a caller's call that ends unanswered on `inst` does (its cancel is already written): the questions
   * it left open are withdrawn (PoolEvents.callAbandoned), and a ping confirms the server read the cancel.
   */
  private abandoned(inst: Instance): (key: string) => void {
    return (key) => {
      this.scope.deps.events.callAbandoned?.(this.fingerprint, inst.id, key);
      // An asking server's instance takes no call until then (Instance.hasRoom): a waiting call may go now.
      this.liveness.confirmCancel(inst, () => this.admission.pump());
    };
  }

  /** The server wants (more) sign-in: status says which, and listings leave it out until it is back. */
  private signInLost(err: McpdError): void {
    this.health.noteErrorOnce(err.message);
    this.listing.signInLost();
    this.scope.changed();
  }

  /**
   * A tool call, on the pool's one path: with a slot free now, everything down to the write to the server
   * runs in this turn (decision 46); otherwise the call is parked in the admission queue (cold start, a
   * saturated pool) and resumed from there when it gets a slot — nothing runs twice. `done` may be called
   * before this returns. What `call` does around a call (the deadline, sign-in loss, the slow-call probe,
   * health) is done here the same way.
   */
  toolCall(name: string, args: JsonObject, opts: CallOptions, done: CallDone): StartedCall {
    return this.lane.toolCall(name, args, opts, done);
  }

  /** See ClientQuestions.lendSlot. */
  lendSlot(instanceId: string): (() => void) | undefined {
    return this.questions.lendSlot(instanceId);
  }

  request(method: string, params: JsonObject, opts: CallOptions): Promise<JsonObject> {
    // A listing for the core's own cache starts a server as a listing does (cause 'metadata'), not as a call.
    // A resource read changes nothing: it may use a slot lent by a call waiting for its caller's answer.
    const readOnly = opts.readOnly ?? method === 'resources/read';
    return this.call({ ...opts, readOnly }, opts.forCache ? 'metadata' : 'call', async (s, timeoutMs, deadlineMs) => {
      const result = await s.request(method, params, { timeoutMs, deadlineMs, signal: opts.signal, onProgress: opts.onProgress });
      this.pageSeen(method, s)(params, result);
      return result;
    });
  }

  /**
   * A request about a task the server holds (tasks/get, tasks/cancel), sent to the instance its pinned key
   * is on without taking a call slot: it is bookkeeping of a call already admitted, and waiting behind the
   * task's own work would keep its caller from ever cancelling it. No instance holds the key any more:
   * UNAVAILABLE (the task went with its instance).
   */
  pinnedRequest(key: string, method: string, params: JsonObject, timeoutMs: number): Promise<JsonObject> {
    const inst = this.routing.boundInstance(key, this.scope.now());
    if (!inst?.usable || !inst.session) {
      return Promise.reject(
        new McpdError('UNAVAILABLE', `the instance of server ${this.scope.spec.name} that holds ${key} is not running any more`),
      );
    }
    return inst.session.request(method, params, { timeoutMs });
  }

  /**
   * The list's caching hints say it is stale (list-freshness.ts) and an instance runs to list it again.
   * A pool at zero instances serves its stale list as it is: starting a server only to re-list would undo
   * scale-to-zero; the next instance that starts lists its tools again (ToolListing.attached).
   */
  listStale(method: CachedList): boolean {
    if (!this.freshness.stale(method, this.scope.now())) return false;
    for (const inst of this.instances.values()) if (inst.usable) return true;
    return false;
  }

  /**
   * How long the cached list stays fresh by its caching hints (0: stale already); undefined when only a
   * change notification ends it. What a caller may cache the core's answer for (mcpdmcp's `ttlMs`).
   */
  listFreshForMs(method: CachedList): number | undefined {
    return this.freshness.freshForMs(method, this.scope.now());
  }

  /** Records a listing page's caching hints, as the session that answered them speaks. */
  private pageSeen(method: string, session: DownstreamSession): (params: JsonObject, page: JsonObject) => void {
    return (params, page) => this.freshness.page(method, params, page, session, this.scope.now());
  }

  /** Cached tool list; on a miss one shared fetch starts an instance (cause 'metadata') if none runs. */
  tools(signal?: AbortSignal): Promise<DownstreamTool[]> {
    return this.listing.tools(signal);
  }

  /** See ServerTraffic.callersOf. */
  callersOf(instanceId: string): string[] | undefined {
    return this.traffic.callersOf(instanceId);
  }

  /** Sends a client notification to every running instance; returns how many got it. */
  notifyInstances(method: string, params: JsonObject): number {
    return this.traffic.notifyInstances(method, params);
  }

  ensureWarm(cause: StartCause): void {
    this.lifecycle.ensureWarm(cause);
  }

  pin(key: string): void {
    this.routing.pin(key);
  }

  /** The id of the instance a pinned key is placed on (none before its first call took a slot, or once it is gone). */
  pinnedInstance(key: string): string | undefined {
    return this.routing.pinnedInstance(key);
  }

  /** The last holder of a key let go: its instance may be reaped for idleness again. */
  unpin(key: string): void {
    const freed = this.routing.unpin(key);
    if (freed) this.idle.arm(freed);
  }

  resume(): void {
    this.lifecycle.resume();
  }

  restartInstance(id: string): Promise<void> {
    return this.lifecycle.restartInstance(id);
  }

  stopInstances(): Promise<void> {
    return this.lifecycle.stopAll();
  }

  /** Stops every instance and refuses new work; used for removal and shutdown. */
  close(cause: StopCause, why: string): Promise<void> {
    this.liveness.stopPings();
    return this.lifecycle.close(cause, why);
  }

  /** Waits for every start and stop in progress. */
  settle(): Promise<void> {
    return this.lifecycle.settle();
  }

  status(): PoolStatus {
    const { scope, health, routing } = this;
    const now = scope.now();
    const instances = this.instances.list().map((i) => i.status(routing.bindingsOf(i, now).count, routing.pinnedKeys(i)));
    // Kept past the instances' lives: status still says which era the server speaks once it idled out.
    this.protocolVersion = instances.findLast((i) => i.protocolVersion !== undefined)?.protocolVersion ?? this.protocolVersion;
    return {
      fingerprint: this.fingerprint,
      references: [...this.references],
      spec: scope.spec,
      instances,
      waiting: this.admission.waiting,
      suspended: scope.suspendedReason !== undefined,
      suspendedReason: scope.suspendedReason,
      restarts: health.restarts,
      lastError: health.lastError,
      lastErrorAt: health.lastErrorAt,
      errorHistory: health.errorHistory(),
      generation: scope.generation,
      protocolVersion: this.protocolVersion,
      asksClient: scope.asksClient,
    };
  }
}

/** What a call that recorded no caller does when it ends: nothing. */
function noCaller(): void {}
