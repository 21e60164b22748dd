import { needsSignIn } from '../../domain/sign-in.js';
import type { DownstreamSession } from '../../domain/downstream.js';
import { isMcpdError, McpdError } from '../../domain/errors.js';
import { ERROR_HISTORY_LIMIT, type PoolStatus, type StartCause, type StopCause } from '../../domain/runtime.js';
import type { ServerSpec } from '../../domain/spec.js';
import { restartDelayMs } from './restart-delay.js';
import { CrashBreaker } from './breaker.js';
import type { TimerHandle } from './clock.js';
import { Instance } from './instance.js';
import { suspendedError } from './messages.js';
import { MetadataCache } from './metadata-cache.js';
import { Pins } from './pins.js';
import { Bindings } from './routing.js';
import type { LogEntry, PoolDeps } from './types.js';
import { WaitQueue } from './waiters.js';

const GRACEFUL: readonly StopCause[] = ['idle', 'ttl', 'reload', 'removed', 'shutdown', 'operator'];

/**
 * Instance lifecycle of one pool: start (single generation-checked attempt), attach, crash,
 * restart with backoff, crash-loop breaker, idle reaping, stop. Routing lives in Pool.
 */
export abstract class PoolCore {
  readonly instances = new Map<string, Instance>();
  readonly waiters = new WaitQueue();
  readonly meta = new MetadataCache();
  readonly bindings: Bindings;
  readonly pins = new Pins();
  generation = 0;
  closed = false;
  suspendedReason?: string;
  restarts = 0;
  lastError?: string;
  lastErrorAt?: number;
  /** What `mcpdctl status <server>` shows: the recent errors in full. */
  protected readonly errorHistory: { at: number; message: string }[] = [];
  protected readonly breaker: CrashBreaker;
  private restartTimer?: TimerHandle;
  private readonly tasks = new Set<Promise<void>>();

  constructor(
    readonly fingerprint: string,
    public spec: ServerSpec,
    public references: string[],
    protected readonly deps: PoolDeps,
  ) {
    this.bindings = new Bindings(spec.sessionTTLSeconds * 1000);
    const rt = deps.runtime;
    this.breaker = new CrashBreaker(rt.crashLoopThreshold, rt.crashLoopWindowSeconds * 1000);
  }

  protected abstract pump(): void;
  protected abstract rejectWaiters(err: Error, onlyUnbound?: boolean): void;
  protected abstract refreshTools(inst: Instance): void;

  get cap(): number {
    return this.spec.strategy === 'singleton' ? 1 : Math.max(1, this.spec.maxInstances);
  }

  /** Instances kept warm: minReady, at least one for always-on. */
  get warmTarget(): number {
    const floor = this.spec.activationMode === 'always-on' ? 1 : 0;
    return Math.min(this.cap, Math.max(this.spec.minReady, floor));
  }

  protected now(): number {
    return this.deps.clock.now();
  }

  protected log(level: LogEntry['level'], event: string, message: string, inst?: Instance, fields?: Record<string, unknown>): void {
    this.deps.log({ level, event, fingerprint: this.fingerprint, instance: inst?.id, message, fields });
  }

  protected changed(): void {
    this.deps.events.statusChanged();
  }

  /** Instances not on their way out (starting, ready, busy). */
  protected liveCount(): number {
    let n = 0;
    for (const i of this.instances.values()) if (!i.stopping) n++;
    return n;
  }

  ensureWarm(cause: StartCause): void {
    if (this.closed || this.suspendedReason) return;
    while (this.liveCount() < this.warmTarget) this.startInstance(cause);
  }

  protected startInstance(cause: StartCause): Instance {
    const inst = new Instance(this.deps.newInstanceId(), cause, this.now());
    this.instances.set(inst.id, inst);
    if (cause === 'restart') this.restarts++;
    const gen = this.generation;
    this.log('info', 'instance.start', `starting server ${this.spec.name} (cause: ${cause})`, inst, { cause });
    inst.startTask = this.track(this.launch(inst, gen));
    this.changed();
    return inst;
  }

  private async launch(inst: Instance, gen: number): Promise<void> {
    let session: DownstreamSession;
    try {
      session = await this.deps.launcher.launch(this.spec, { instanceId: inst.id, signal: inst.launchAbort.signal });
    } catch (err) {
      this.startFailed(inst, err);
      return;
    }
    if (this.closed || gen !== this.generation || inst.state !== 'starting') {
      // Superseded by a stop, removal or reload while starting: never serve from it.
      this.log('info', 'instance.discarded', `discarding a start of server ${this.spec.name} superseded while starting`, inst);
      inst.session = session;
      // Ignored: the instance is being dropped; its process is killed by the launcher whatever close says.
      await session.close().catch(() => {});
      inst.state = 'stopped';
      this.instances.delete(inst.id);
      this.changed();
      return;
    }
    try {
      this.attach(inst, session);
    } catch (err) {
      // Ignored: the instance is being dropped; its process is killed by the launcher whatever close says.
      await session.close().catch(() => {});
      this.startFailed(inst, err);
    }
  }

  private attach(inst: Instance, session: DownstreamSession): void {
    inst.session = session;
    inst.state = 'ready';
    inst.lastUsedAt = this.now();
    session.onNotification((method, params) => {
      this.deps.events.notification(this.fingerprint, inst.id, method, params);
      if (method === 'notifications/tools/list_changed') this.refreshTools(inst);
    });
    session.onStderr((line) => this.deps.events.stderr(this.fingerprint, inst.id, line));
    session.onClose((err) => this.sessionClosed(inst, err));
    this.meta.capabilities = session.capabilities;
    this.meta.serverInfo = session.serverInfo;
    const ms = this.now() - inst.startedAt;
    this.log('info', 'instance.ready', `server ${this.spec.name} ready in ${ms} ms`, inst, { pid: session.pid, ms });
    if ((!this.meta.tools || this.meta.restored) && !this.meta.inflight) this.refreshTools(inst);
    this.armIdle(inst);
    this.pump();
    this.changed();
  }

  private startFailed(inst: Instance, err: unknown): void {
    this.instances.delete(inst.id);
    inst.state = 'failed';
    this.changed();
    if (inst.stopping || this.closed) return;
    const msg = err instanceof Error ? err.message : String(err);
    this.noteError(msg);
    this.log('error', 'instance.start_failed', msg, inst);
    // Missing sign-in is no crash: retrying cannot help, and suspending would outlive `mcpdctl auth`.
    if (needsSignIn(err)) return this.rejectWaiters(err as McpdError);
    this.recordCrash(msg);
    if (this.suspendedReason) return;
    const hope = [...this.instances.values()].some((i) => i.usable || i.state === 'starting');
    if (!hope) this.rejectWaiters(isMcpdError(err) ? err : new McpdError('UNAVAILABLE', msg));
    else this.pump();
    this.scheduleRestart();
  }

  private sessionClosed(inst: Instance, err?: Error): void {
    if (inst.stopping || inst.state === 'stopped') return; // we asked for it
    const why = err?.message ?? `server ${this.spec.name} closed its connection`;
    inst.state = 'failed';
    this.instances.delete(inst.id);
    this.bindings.dropInstance(inst.id);
    this.clearIdle(inst);
    this.noteError(why);
    this.pinsLost(inst, 'crash');
    this.log('warning', 'instance.crash', why, inst, { cause: 'crash', inFlight: inst.inFlight });
    this.recordCrash(why);
    this.changed();
    if (this.suspendedReason) return;
    this.pump();
    this.scheduleRestart();
  }

  private recordCrash(why: string): void {
    this.breaker.record(this.now());
    if (!this.breaker.tripped(this.now())) return;
    const n = this.breaker.recent(this.now());
    this.suspend(`it crashed ${n} times within ${this.deps.runtime.crashLoopWindowSeconds}s (last: ${why})`);
  }

  suspend(reason: string): void {
    if (this.suspendedReason) return;
    this.suspendedReason = reason;
    this.generation++;
    this.clearRestart();
    this.log('error', 'pool.suspended', `server ${this.spec.name} suspended: ${reason}`);
    this.rejectWaiters(suspendedError(this.spec, reason));
    // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
    for (const inst of this.instances.values()) void this.stop(inst, 'crash');
    this.changed();
  }

  resume(): void {
    if (!this.suspendedReason) return;
    this.suspendedReason = undefined;
    this.breaker.reset();
    this.log('notice', 'pool.resumed', `server ${this.spec.name} resumed`);
    this.ensureWarm(this.spec.activationMode === 'always-on' ? 'always-on' : 'min-ready');
    this.changed();
  }

  /** An operator's restart (dashboard): the instance drains and stops, a fresh one starts in its place. */
  async restartInstance(id: string): Promise<void> {
    const inst = this.instances.get(id);
    if (!inst) throw new McpdError('NOT_FOUND', `server ${this.spec.name} has no instance ${id} (it may have stopped already)`);
    await this.stop(inst, 'operator');
    if (!this.closed && !this.suspendedReason && this.liveCount() < Math.max(1, this.warmTarget)) this.startInstance('restart');
  }

  /** An operator's stop (dashboard): every instance drains and stops; the pool starts again on demand. */
  async stopInstances(): Promise<void> {
    await Promise.all([...this.instances.values()].map((i) => this.stop(i, 'operator')));
  }

  protected noteError(msg: string): void {
    this.lastError = msg;
    this.lastErrorAt = this.now();
    this.errorHistory.push({ at: this.lastErrorAt, message: msg });
    if (this.errorHistory.length > ERROR_HISTORY_LIMIT) this.errorHistory.shift();
  }

  protected scheduleRestart(): void {
    if (this.closed || this.suspendedReason || this.restartTimer !== undefined) return;
    if (this.liveCount() >= this.warmTarget) return;
    const delay = restartDelayMs(this.breaker.recent(this.now()), this.deps.runtime.restartBackoffMaxSeconds, this.deps.random);
    this.log('info', 'instance.restart_scheduled', `restarting server ${this.spec.name} in ${delay} ms`, undefined, { delayMs: delay });
    this.restartTimer = this.deps.clock.setTimeout(() => {
      this.restartTimer = undefined;
      this.ensureWarm('restart');
    }, delay);
  }

  private clearRestart(): void {
    if (this.restartTimer !== undefined) this.deps.clock.clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  protected armIdle(inst: Instance, inMs = this.spec.idleSeconds * 1000): void {
    this.clearIdle(inst);
    if (this.spec.idleSeconds <= 0 || this.spec.strategy === 'persistent') return;
    if (!inst.usable || inst.inFlight > 0) return;
    inst.idleTimer = this.deps.clock.setTimeout(() => this.idleCheck(inst), inMs);
  }

  protected clearIdle(inst: Instance): void {
    if (inst.idleTimer !== undefined) this.deps.clock.clearTimeout(inst.idleTimer);
    inst.idleTimer = undefined;
  }

  private idleCheck(inst: Instance): void {
    inst.idleTimer = undefined;
    if (!inst.usable || inst.inFlight > 0) return;
    if (this.pins.holds(inst.id)) return; // re-armed by the last unpin
    const now = this.now();
    const idleMs = this.spec.idleSeconds * 1000;
    const quietFor = now - inst.lastUsedAt;
    if (quietFor < idleMs) return this.armIdle(inst, idleMs - quietFor);
    const bound = this.bindings.liveFor(inst.id, now);
    if (bound.count > 0) return this.armIdle(inst, bound.lastExpiry - now); // keep caller sessions' state
    const usable = [...this.instances.values()].filter((i) => i.usable).length;
    if (usable <= this.warmTarget) return;
    const cause: StopCause = inst.everBound ? 'ttl' : 'idle';
    // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
    void this.stop(inst, cause);
  }

  /** Drain (graceful causes), close the session (SIGTERM → grace → SIGKILL for stdio), forget it. */
  stop(inst: Instance, cause: StopCause): Promise<void> {
    inst.stopping ??= this.track(this.doStop(inst, cause));
    return inst.stopping;
  }

  private async doStop(inst: Instance, cause: StopCause): Promise<void> {
    inst.stopCause = cause;
    const wasStarting = inst.state === 'starting';
    inst.state = 'draining';
    this.clearIdle(inst);
    this.bindings.dropInstance(inst.id);
    this.pinsLost(inst, cause);
    this.log('info', 'instance.stop', `stopping server ${this.spec.name} (cause: ${cause})`, inst, { cause, pid: inst.session?.pid });
    this.changed();
    if (wasStarting) {
      inst.launchAbort.abort();
      await inst.startTask; // the start sees the instance is no longer starting and closes what it got
    } else {
      if (inst.inFlight > 0 && GRACEFUL.includes(cause)) await this.drainWithin(inst, this.spec.drainTimeoutSeconds * 1000);
      await inst.session?.close().catch((err: Error) => this.log('warning', 'instance.stop_error', err.message, inst));
    }
    inst.state = 'stopped';
    this.instances.delete(inst.id);
    this.log('info', 'instance.stopped', `server ${this.spec.name} stopped (cause: ${cause})`, inst, { cause });
    this.changed();
    if (this.closed) return;
    this.pump();
    this.scheduleRestart();
  }

  /** Pins the instance held are unplaced at once, so their next request goes to a live instance. */
  private pinsLost(inst: Instance, cause: StopCause): void {
    for (const key of this.pins.dropInstance(inst.id)) {
      this.log('info', 'pin.lost', `server ${this.spec.name} lost the instance pinned for ${key} (cause: ${cause})`, inst, { key, cause });
      this.deps.events.pinLost(this.fingerprint, key);
    }
  }

  pin(key: string): void {
    this.pins.add(key);
  }

  /** The last holder of a key let go: its instance may be reaped for idleness again. */
  unpin(key: string): void {
    const { gone, instanceId } = this.pins.remove(key);
    if (!gone || instanceId === undefined) return;
    const inst = this.instances.get(instanceId);
    if (inst && !this.pins.holds(inst.id)) this.armIdle(inst);
  }

  private drainWithin(inst: Instance, ms: number): Promise<void> {
    let timer: TimerHandle;
    const timeout = new Promise<void>((r) => (timer = this.deps.clock.setTimeout(r, ms)));
    return Promise.race([inst.drained(), timeout]).finally(() => this.deps.clock.clearTimeout(timer));
  }

  /** Stops every instance and refuses new work; used for removal and shutdown. */
  async close(cause: StopCause, why: string): Promise<void> {
    this.closed = true;
    this.generation++;
    this.clearRestart();
    this.rejectWaiters(new McpdError('UNAVAILABLE', `server ${this.spec.name} is no longer available: ${why}`));
    // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
    for (const inst of this.instances.values()) void this.stop(inst, cause);
    await this.settle();
    this.bindings.clear();
    this.pins.clear();
  }

  /** Waits for every start and stop in progress. */
  async settle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  protected track(p: Promise<void>): Promise<void> {
    const t = p.finally(() => this.tasks.delete(t));
    this.tasks.add(t);
    return t;
  }

  status(): PoolStatus {
    const now = this.now();
    return {
      fingerprint: this.fingerprint,
      references: [...this.references],
      spec: this.spec,
      instances: [...this.instances.values()].map((i) => i.status(this.bindings.liveFor(i.id, now).count, this.pins.countOn(i.id))),
      waiting: this.waiters.length,
      suspended: this.suspendedReason !== undefined,
      suspendedReason: this.suspendedReason,
      restarts: this.restarts,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt,
      errorHistory: [...this.errorHistory],
      generation: this.generation,
    };
  }
}
