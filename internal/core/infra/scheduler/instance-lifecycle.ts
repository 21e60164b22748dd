import { needsSignIn } from '../../../contract/model/sign-in.js';
import type { DownstreamSession } from '../../../contract/model/downstream.js';
import { isMcpdError, McpdError } from '../../../shared/errors.js';
import type { StartCause, StopCause } from '../../../contract/model/runtime.js';
import type { TimerHandle } from './clock.js';
import type { IdleReaper } from './idle-reaper.js';
import { Instance } from './instance.js';
import type { InstanceSet } from './instance-set.js';
import type { KeyRouting } from './key-routing.js';
import { removedError, suspendedError } from './messages.js';
import type { PoolHealth } from './pool-health.js';
import type { PoolScope } from './pool-scope.js';
import type { RestartScheduler } from './restart-scheduler.js';

const GRACEFUL: readonly StopCause[] = ['idle', 'ttl', 'reload', 'removed', 'shutdown', 'operator'];

/** What the lifecycle tells the parts of the pool that depend on which instances run. */
export interface LifecycleListener {
  /** An instance became ready or went away: serve the waiting calls, start more if demand needs it. */
  capacityChanged(): void;
  /** Nothing will serve the waiting calls (suspension, close, a start failed with no instance left). */
  failWaiters(err: Error): void;
  /** A session attached: its capabilities are known, its tools may need listing. */
  attached(inst: Instance, session: DownstreamSession): void;
  /** The server said its tool list changed (notifications/tools/list_changed). */
  toolsChanged(inst: Instance): void;
  /** The server wants (more) sign-in: leave it out of listings until it lets a request through again. */
  signInLost(err: McpdError): void;
}

export interface LifecycleParts {
  scope: PoolScope;
  instances: InstanceSet;
  health: PoolHealth;
  routing: KeyRouting;
  idle: IdleReaper;
  restarts: RestartScheduler;
}

/**
 * Instance lifecycle of one pool: start (single generation-checked attempt), attach, crash, restart
 * with backoff, crash-loop suspension, stop (drain, close), close of the whole pool.
 */
export class InstanceLifecycle {
  private readonly tasks = new Set<Promise<void>>();

  constructor(
    private readonly p: LifecycleParts,
    private readonly listener: LifecycleListener,
  ) {}

  ensureWarm(cause: StartCause): void {
    const { scope, instances } = this.p;
    if (!scope.open) return;
    while (instances.liveCount() < scope.warmTarget) this.start(cause);
  }

  start(cause: StartCause): Instance {
    const { scope } = this.p;
    const inst = new Instance(scope.deps.newInstanceId(), cause, scope.now());
    this.p.instances.add(inst);
    if (cause === 'restart') this.p.health.countRestart();
    const gen = scope.generation;
    scope.log('info', 'instance.start', `starting server ${scope.spec.name} (cause: ${cause})`, inst, { cause });
    inst.startTask = this.track(this.launch(inst, gen));
    scope.changed();
    return inst;
  }

  private async launch(inst: Instance, gen: number): Promise<void> {
    const { scope } = this.p;
    const mark = this.p.health.mark();
    let session: DownstreamSession;
    try {
      session = await scope.deps.launcher.launch(scope.spec, { instanceId: inst.id, signal: inst.launchAbort.signal });
    } catch (err) {
      this.startFailed(inst, err);
      return;
    }
    if (scope.closed || gen !== scope.generation || inst.state !== 'starting') {
      // Superseded by a stop, removal or reload while starting: never serve from it.
      scope.log('info', 'instance.discarded', `discarding a start of server ${scope.spec.name} superseded while starting`, inst);
      inst.session = session;
      // Ignored: the instance is being dropped; its process is killed by the launcher whatever close says.
      await session.close().catch(() => {});
      inst.state = 'stopped';
      this.p.instances.delete(inst);
      scope.changed();
      return;
    }
    try {
      this.attach(inst, session);
      this.p.health.recovered(mark);
    } catch (err) {
      // Ignored: the instance is being dropped; its process is killed by the launcher whatever close says.
      await session.close().catch(() => {});
      this.startFailed(inst, err);
    }
  }

  private attach(inst: Instance, session: DownstreamSession): void {
    const { scope } = this.p;
    inst.session = session;
    inst.state = 'ready';
    inst.lastUsedAt = scope.now();
    session.onNotification((method, params) => {
      scope.deps.events.notification(scope.fingerprint, inst.id, method, params);
      if (method === 'notifications/tools/list_changed') this.listener.toolsChanged(inst);
    });
    session.onStderr((line) => scope.deps.events.stderr(scope.fingerprint, inst.id, line));
    session.onClose((err) => this.sessionClosed(inst, err));
    const ms = scope.now() - inst.startedAt;
    scope.log('info', 'instance.ready', `server ${scope.spec.name} ready in ${ms} ms`, inst, { pid: session.pid, ms });
    this.listener.attached(inst, session);
    this.p.idle.arm(inst);
    this.listener.capacityChanged();
    scope.changed();
  }

  private startFailed(inst: Instance, err: unknown): void {
    const { scope } = this.p;
    this.p.instances.delete(inst);
    inst.state = 'failed';
    scope.changed();
    if (inst.stopping || scope.closed) return;
    const msg = err instanceof Error ? err.message : String(err);
    this.p.health.noteError(msg);
    scope.log('error', 'instance.start_failed', msg, inst);
    // Missing sign-in is no crash: retrying cannot help, and suspending would outlive `mcpdctl auth`.
    if (needsSignIn(err)) {
      this.listener.signInLost(err as McpdError);
      return this.listener.failWaiters(err as McpdError);
    }
    this.crashed(msg);
    if (scope.suspendedReason) return;
    if (!this.p.instances.anyServingOrStarting()) this.listener.failWaiters(isMcpdError(err) ? err : new McpdError('UNAVAILABLE', msg));
    else this.listener.capacityChanged();
    this.p.restarts.schedule();
  }

  private sessionClosed(inst: Instance, err?: Error): void {
    if (inst.stopping || inst.state === 'stopped') return; // we asked for it
    const { scope } = this.p;
    const why = err?.message ?? `server ${scope.spec.name} closed its connection`;
    inst.state = 'failed';
    this.p.instances.delete(inst);
    this.p.idle.disarm(inst);
    this.p.health.noteError(why);
    this.p.routing.instanceEnded(inst, 'crash');
    scope.log('warning', 'instance.crash', why, inst, { cause: 'crash', inFlight: inst.inFlight });
    this.crashed(why);
    scope.changed();
    if (scope.suspendedReason) return;
    this.listener.capacityChanged();
    this.p.restarts.schedule();
  }

  /** Counts a crash; too many within the window suspend the pool. */
  private crashed(why: string): void {
    const n = this.p.health.crashed();
    if (n === undefined) return;
    this.suspend(`it crashed ${n} times within ${this.p.scope.deps.runtime.crashLoopWindowSeconds}s (last: ${why})`);
  }

  suspend(reason: string): void {
    const { scope } = this.p;
    if (!scope.suspend(reason)) return;
    this.p.restarts.cancel();
    scope.log('error', 'pool.suspended', `server ${scope.spec.name} suspended: ${reason}`);
    this.listener.failWaiters(suspendedError(scope.spec, reason));
    // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
    for (const inst of this.p.instances.values()) void this.stop(inst, 'crash');
    scope.changed();
  }

  resume(): void {
    const { scope } = this.p;
    if (!scope.resume()) return;
    this.p.health.forgetCrashes();
    scope.log('notice', 'pool.resumed', `server ${scope.spec.name} resumed`);
    this.ensureWarm(scope.spec.activationMode === 'always-on' ? 'always-on' : 'min-ready');
    scope.changed();
  }

  /** An operator's restart (dashboard): the instance drains and stops, a fresh one starts in its place. */
  async restartInstance(id: string): Promise<void> {
    const { scope, instances } = this.p;
    const inst = instances.get(id);
    if (!inst) throw new McpdError('NOT_FOUND', `server ${scope.spec.name} has no instance ${id} (it may have stopped already)`);
    await this.stop(inst, 'operator');
    if (scope.open && instances.liveCount() < Math.max(1, scope.warmTarget)) this.start('restart');
  }

  /** An operator's stop (dashboard): every instance drains and stops; the pool starts again on demand. */
  async stopAll(): Promise<void> {
    await Promise.all(this.p.instances.list().map((i) => this.stop(i, 'operator')));
  }

  /** Drain (graceful causes), close the session (SIGTERM → grace → SIGKILL for stdio), forget it. */
  stop(inst: Instance, cause: StopCause): Promise<void> {
    inst.stopping ??= this.track(this.doStop(inst, cause));
    return inst.stopping;
  }

  private async doStop(inst: Instance, cause: StopCause): Promise<void> {
    const { scope } = this.p;
    inst.stopCause = cause;
    const wasStarting = inst.state === 'starting';
    inst.state = 'draining';
    this.p.idle.disarm(inst);
    this.p.routing.instanceEnded(inst, cause);
    scope.log('info', 'instance.stop', `stopping server ${scope.spec.name} (cause: ${cause})`, inst, { cause, pid: inst.session?.pid });
    scope.changed();
    if (wasStarting) {
      inst.launchAbort.abort();
      await inst.startTask; // the start sees the instance is no longer starting and closes what it got
    } else {
      if (inst.inFlight > 0 && GRACEFUL.includes(cause)) await this.drainWithin(inst, scope.spec.drainTimeoutSeconds * 1000);
      await inst.session?.close().catch((err: Error) => scope.log('warning', 'instance.stop_error', err.message, inst));
    }
    inst.state = 'stopped';
    this.p.instances.delete(inst);
    scope.log('info', 'instance.stopped', `server ${scope.spec.name} stopped (cause: ${cause})`, inst, { cause });
    scope.changed();
    if (scope.closed) return;
    this.listener.capacityChanged();
    this.p.restarts.schedule();
  }

  private drainWithin(inst: Instance, ms: number): Promise<void> {
    const { clock } = this.p.scope.deps;
    let timer: TimerHandle;
    const timeout = new Promise<void>((r) => (timer = clock.setTimeout(r, ms)));
    return Promise.race([inst.drained(), timeout]).finally(() => clock.clearTimeout(timer));
  }

  /** Stops every instance and refuses new work; used for removal and shutdown. */
  async close(cause: StopCause, why: string): Promise<void> {
    const { scope } = this.p;
    scope.close();
    this.p.restarts.cancel();
    this.listener.failWaiters(removedError(scope.spec, why));
    // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
    for (const inst of this.p.instances.values()) void this.stop(inst, cause);
    await this.settle();
    this.p.routing.clear();
  }

  /** Waits for every start and stop in progress. */
  async settle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  private track(p: Promise<void>): Promise<void> {
    const t = p.finally(() => this.tasks.delete(t));
    this.tasks.add(t);
    return t;
  }
}
