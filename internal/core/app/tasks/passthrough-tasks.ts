import type { ClientRequestsApi } from '../../../contract/control/client-requests.js';
import type { TaskStartOptions } from '../../../contract/control/control-areas.js';
import type { ControlApi } from '../../../contract/control/control.js';
import { SERVER_TASK_RELISTENED, TASK_NOTIFICATION, taskToolModeOf } from '../../../contract/model/tasks.js';
import type { ToolEntry } from '../../../contract/model/tool.js';
import { promiseOf } from '../../domain/call-adapters.js';
import type { JsonObject } from '../../../shared/json.js';
import type { CoreLog } from '../area-deps.js';
import type { HostedTask } from './hosted-task.js';
import { PassedTask, type PassedTaskPools } from './passed-task.js';
import { ModernPassedTask } from './passed-task-2026.js';
import { ServerTaskListens } from './server-task-listens.js';
import { createdTaskOf, serverTaskEra, serverTaskOf, type ServerTask } from './server-tasks.js';

/** A 2025-11-25 server's push of its task's status (the `Task`), sent as its status changes. */
const TASK_STATUS_NOTIFICATION = 'notifications/tasks/status';
/** Status notifications kept for tasks not known yet (latest per task): beyond it the oldest is dropped. */
const MAX_EARLY_STATUSES = 32;

/** A server's task passed through: a 2025-11-25 one, or a 2026-07-28 one (SEP-2663). */
export type ServerTaskHandle = PassedTask | ModernPassedTask;

/** What pass-through needs of the pools: the server's capabilities, pins, and requests on a pinned instance. */
interface PassthroughPools extends PassedTaskPools {
  capabilities(fingerprint: string): JsonObject | undefined;
  pin(fingerprint: string, key: string): void;
  unpin(fingerprint: string, key: string): void;
  /** The instance a pinned key is placed on: the one whose notifications speak of the task. */
  pinnedInstance(fingerprint: string, key: string): string | undefined;
}

export interface PassthroughDeps {
  pools: PassthroughPools;
  clientRequests: ClientRequestsApi;
  log: CoreLog;
}

/**
 * Tasks of servers that implement tasks themselves (2025-11-25 experimental tasks, or SEP-2663's
 * extension of 2026-07-28), passed through: the
 * creating tools/call goes through the door task-augmented, on a routing key pinned to the instance it
 * lands on, so every later request about the task reaches that instance. The client gets the core's own
 * task id, looked up under its caller (the server's id never leaves the core, so two instances' or
 * servers' ids cannot collide); the instance ending fails the task.
 */
export class PassthroughTasks {
  private readonly byId = new Map<string, ServerTaskHandle>();
  private readonly byKey = new Map<string, ServerTaskHandle>();
  /**
   * Status a server pushed for a task of its own before the core knew the task: it runs the task as soon
   * as it made it, so its first status may come before its CreateTaskResult is handled. Keyed by
   * fingerprint, instance and the server's id.
   */
  private readonly early = new Map<string, ServerTask>();
  /** The streams on which 2026-07-28 servers tell their tasks' changes. */
  private readonly listens: ServerTaskListens;

  constructor(private readonly d: PassthroughDeps) {
    this.listens = new ServerTaskListens(d.pools, d.log);
  }

  /**
   * A server's notification (PoolPort.onNotification): a 2025-11-25 server's `notifications/tasks/status`,
   * or a 2026-07-28 one's `notifications/tasks` (its DetailedTask, on the stream the core keeps for its
   * tasks: server-task-listens.ts), moves the task the core passes on for it as a `tasks/get` answer
   * would, so its caller hears of it without polling. The task is found by the instance that sent it:
   * server ids are unique only there.
   */
  notified(fingerprint: string, instanceId: string, method: string, params: JsonObject): void {
    if (method === TASK_NOTIFICATION) return this.notifiedModern(fingerprint, instanceId, params);
    if (method === SERVER_TASK_RELISTENED) return this.listens.relistened(fingerprint, instanceId);
    if (method !== TASK_STATUS_NOTIFICATION) return;
    const told = serverTaskOf(params);
    if (!told) return;
    const task = this.onInstance(fingerprint, instanceId, told.taskId);
    if (task instanceof PassedTask) return task.apply(told);
    if (task) return;
    const key = earlyKey(fingerprint, instanceId, told.taskId);
    this.early.delete(key);
    this.early.set(key, told);
    if (this.early.size > MAX_EARLY_STATUSES) this.early.delete(this.early.keys().next().value!);
  }

  /** A 2026 server tells only of tasks the core listens for, so only of tasks the core knows. */
  private notifiedModern(fingerprint: string, instanceId: string, params: JsonObject): void {
    const told = serverTaskOf(params);
    if (!told) return;
    const task = this.onInstance(fingerprint, instanceId, told.taskId);
    if (task instanceof ModernPassedTask) task.apply(told, params);
  }

  private onInstance(fingerprint: string, instanceId: string, serverTaskId: string): ServerTaskHandle | undefined {
    for (const t of this.byKey.values()) {
      const { init } = t;
      if (init.fingerprint === fingerprint && init.serverTaskId === serverTaskId && this.instanceOf(init) === instanceId) return t;
    }
    return undefined;
  }

  private instanceOf(init: { fingerprint: string; key: string }): string | undefined {
    return this.d.pools.pinnedInstance(init.fingerprint, init.key);
  }

  /** The instance a pinned task key was on ended (PoolPort.onPinLost). */
  pinLost(_fingerprint: string, key: string): void {
    this.byKey.get(key)?.lost();
  }

  /** The tool's server runs its tasks itself and the tool takes tasks: the call is passed through. */
  routes(entry: ToolEntry | undefined): entry is ToolEntry {
    if (!entry || taskToolModeOf(entry.definition).support === 'forbidden') return false;
    return serverTaskEra(this.d.pools.capabilities(entry.fingerprint)) !== undefined;
  }

  /**
   * Sends the task-augmented call for `state` (a task the host keeps once this returns) and answers with
   * the server's task, or with the plain result a server may answer with after all. The call's own failure
   * (refused by policy, the server's error) is thrown: it is the tools/call's, as for a plain call.
   */
  async start(
    entry: ToolEntry,
    state: HostedTask,
    args: JsonObject,
    opts: TaskStartOptions,
    run: ControlApi['toolCall'],
  ): Promise<ServerTaskHandle | { plain: JsonObject }> {
    const { fingerprint } = entry;
    const era = serverTaskEra(this.d.pools.capabilities(fingerprint)) ?? '2025';
    const key = `task:${state.id}`;
    const caller = state.init.caller;
    this.d.pools.pin(fingerprint, key);
    let created: JsonObject;
    try {
      // The ttl asked is the one the core keeps ended tasks for, whatever the server keeps them for: the core keeps the result.
      // A 2026 server is asked by the tasks extension in the request's clientCapabilities (the session adds it).
      const taskParams: JsonObject = era === '2026' ? {} : { task: { ttl: state.init.ttlMs } };
      created = await promiseOf((done) => run(caller, entry.name, args, { client: opts.client, routingKey: key, taskParams }, done));
    } catch (e) {
      this.d.pools.unpin(fingerprint, key);
      throw e;
    }
    const told = createdTaskOf(created, era);
    if (!told) {
      this.d.pools.unpin(fingerprint, key);
      return { plain: created };
    }
    const init = {
      fingerprint,
      key,
      serverTaskId: told.taskId,
      server: entry.server,
      opts,
      pools: this.d.pools,
      clientRequests: this.d.clientRequests,
      log: this.d.log,
    };
    const task = era === '2026' ? new ModernPassedTask(state, init) : new PassedTask(state, init);
    this.byId.set(state.id, task);
    this.byKey.set(key, task);
    this.d.log('info', 'task passed through', { caller, task: state.id, tool: entry.name, server: entry.server });
    task.created = this.takeEarly(init, told) ?? told;
    if (task instanceof ModernPassedTask) this.listens.add(task);
    return task;
  }

  /** A status the server pushed before its CreateTaskResult was handled: newer than that result, so it wins. */
  private takeEarly(init: { fingerprint: string; key: string }, told: ServerTask): ServerTask | undefined {
    const instance = this.instanceOf(init);
    if (instance === undefined) return undefined;
    const key = earlyKey(init.fingerprint, instance, told.taskId);
    const early = this.early.get(key);
    this.early.delete(key);
    return early;
  }

  /** The passed-through task of this id, if it is one. */
  of(taskId: string): ServerTaskHandle | undefined {
    return this.byId.get(taskId);
  }

  /** The task ended (the host's onEnd): its instance need not be held for it any more. */
  ended(taskId: string): void {
    const task = this.byId.get(taskId);
    if (!task || !this.byKey.delete(task.init.key)) return;
    const unpin = () => this.d.pools.unpin(task.init.fingerprint, task.init.key);
    // The key reaches the instance to close (or narrow) its task stream: it is let go once that is done.
    if (task instanceof ModernPassedTask) void this.listens.remove(task).finally(unpin);
    else unpin();
  }

  /** The host forgot the task (its ttlMs ran out). */
  forget(taskId: string): void {
    this.ended(taskId);
    this.byId.delete(taskId);
  }
}

function earlyKey(fingerprint: string, instanceId: string, serverTaskId: string): string {
  return JSON.stringify([fingerprint, instanceId, serverTaskId]);
}
