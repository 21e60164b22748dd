import type { ClientChannel, ClientRequestsApi } from '../../../contract/control/client-requests.js';
import type { FirstAnswerOutcome, TaskStartOptions } from '../../../contract/control/control-areas.js';
import type { ControlApi } from '../../../contract/control/control.js';
import type { CallDone, StartedCall } from '../../../contract/model/downstream.js';
import type { ToolEntry } from '../../../contract/model/tool.js';
import { taskToolModeOf, type CallerTask, type TaskToolMode, type TaskView } from '../../../contract/model/tasks.js';
import { McpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { CoreLog } from '../area-deps.js';
import { HostedTask } from './hosted-task.js';
import { newTaskId } from './task-id.js';
import type { PassthroughTasks } from './passthrough-tasks.js';

/** How a task's tool call is started: the `toolCall` of the door's view for the face that created the task. */
type TaskRunner = ControlApi['toolCall'];

/** How long a task is kept once it ended (SEP-2663 `ttlMs`): a client that reconnects within it gets the result. */
const TASK_TTL_MS = 60 * 60_000;
/** What a client is told to wait between two `tasks/get`. */
const TASK_POLL_INTERVAL_MS = 500;
/** Unfinished tasks one caller may hold: past it a new one is refused, so no caller can exhaust the core. */
const MAX_RUNNING_TASKS_PER_CALLER = 64;

export interface TaskHostDeps {
  /** The caller's tool by the name it calls it (its index), if known. */
  findTool(caller: string, name: string): ToolEntry | undefined;
  /** Lists the caller's servers as a call would before resolving a name its index does not hold yet. */
  loadTools(caller: string): Promise<unknown>;
  clientRequests: ClientRequestsApi;
  log: CoreLog;
  ttlMs?: number;
  /** Where tasks are kept across core restarts (the state directory); absent = in memory only. */
  journal?: TaskJournalPort;
  /** Tasks of servers that run tasks themselves (passthrough-tasks.ts); absent: every task is hosted. */
  passthrough?: PassthroughTasks;
}

/** The task journal as the host uses it (infra/tasks/task-journal.ts). */
interface TaskJournalPort {
  save(t: { caller: string; view: TaskView; expiresAt?: number }): void;
  remove(taskId: string): void;
  loadAll(): Array<{ caller: string; view: TaskView; expiresAt?: number }>;
}

/**
 * The tasks the core hosts (SEP-2663), per caller: each runs one tool call through the door of the face
 * that created it (its runner), so admission and the interceptors apply as to any call. The call's server
 * requests go to the task (its `inputRequests`), not to a session: the task outlives the session that made
 * it, and its caller fetches it from any session of its own, never another caller's.
 */
export class TaskHost {
  private readonly byCaller = new Map<string, Map<string, HostedTask>>();
  private readonly ttlMs: number;
  private readonly changeListeners = new Set<() => void>();
  /** Who hears each task's changes (TasksApi.watch), by task id. */
  private readonly watchers = new Map<string, Set<(view: TaskView) => void>>();

  constructor(private readonly d: TaskHostDeps) {
    this.ttlMs = d.ttlMs ?? TASK_TTL_MS;
    this.restore();
  }

  /** The tasks a previous core saved: those that ended keep their outcome, those that ran failed with that core. */
  private restore(): void {
    const why = `the mcpd core restarted while the task ran (now pid ${process.pid}); its call ended with the previous core, call the tool again`;
    for (const saved of this.d.journal?.loadAll() ?? []) {
      const task = HostedTask.restored(
        this.initOf(saved.view.taskId, saved.caller, saved.view.tool ?? '', saved.view.server),
        saved.view,
        saved.expiresAt,
        why,
      );
      this.tasksOf(saved.caller).set(task.id, task);
    }
  }

  private initOf(id: string, caller: string, tool: string, server: string | undefined) {
    return {
      id,
      caller,
      tool,
      server,
      ttlMs: this.ttlMs,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      onEnd: (t: HostedTask) => this.ended(t),
      onChange: (t: HostedTask) => this.changed(t),
    };
  }

  /** A name not listed yet is looked up after the caller's listing (a first call on a cold core is no plain call by accident). */
  async modeOf(caller: string, tool: string): Promise<TaskToolMode> {
    let entry = this.d.findTool(caller, tool);
    if (!entry) {
      await this.d.loadTools(caller);
      entry = this.d.findTool(caller, tool);
    }
    return entry ? taskToolModeOf(entry.definition) : { support: 'forbidden', asksFirst: false };
  }

  start(caller: string, tool: string, args: JsonObject, opts: TaskStartOptions, run: TaskRunner): TaskView | Promise<TaskView> {
    const entry = this.d.findTool(caller, tool);
    if (this.d.passthrough?.routes(entry)) return this.startPassed(this.d.passthrough, caller, entry, args, opts, run);
    const task = this.newTask(caller, tool);
    this.publish(task);
    task.running(this.runTask(task, args, opts, run, task, { result: (r) => task.completed(r), error: (e) => task.failed(e) }));
    return task.view();
  }

  /**
   * See TasksApi.startAfterAnswer. The call runs under the task's routing key from the start, so its server's
   * questions reach the task once it exists, and the creating session's client before: no question is
   * routed by a session that may serve another request by then.
   */
  startAfterAnswer(
    caller: string,
    tool: string,
    args: JsonObject,
    opts: TaskStartOptions,
    run: TaskRunner,
    ask: ClientChannel,
    outcome: FirstAnswerOutcome,
  ): StartedCall {
    const task = this.newTask(caller, tool);
    let exists = false;
    const answered = () => {
      if (exists) return;
      exists = true;
      this.publish(task);
      outcome.task(task.view());
    };
    const channel: ClientChannel = {
      request: (method, params, o) =>
        exists ? task.request(method, params, o) : ask.request(method, params, o).then((r) => (answered(), r)),
    };
    const call = this.runTask(task, args, opts, run, channel, {
      result: (r) => (exists ? task.completed(r) : outcome.result(r)),
      error: (e) => (exists ? task.failed(e) : outcome.error(e)),
    });
    task.running(call);
    return call;
  }

  /** A task not yet known to its caller; refused past the caller's limit of running tasks. */
  private newTask(caller: string, tool: string): HostedTask {
    this.checkRoom(caller);
    const server = this.d.findTool(caller, tool)?.server;
    return new HostedTask(this.initOf(newTaskId(), caller, tool, server));
  }

  /** Refuses a task past the caller's limit of running tasks. */
  private checkRoom(caller: string): void {
    const open = [...this.tasksOf(caller).values()].filter((t) => !t.ended).length;
    if (open >= MAX_RUNNING_TASKS_PER_CALLER) {
      throw new McpdError(
        'POOL_SATURATED',
        `caller "${caller}" has ${open} tasks running, the most mcpd hosts per caller; wait for some to end or cancel them (tasks/cancel)`,
      );
    }
  }

  /** The caller can fetch the task from now on. */
  private publish(task: HostedTask): void {
    const { caller, tool } = task.init;
    this.tasksOf(caller).set(task.id, task);
    this.changed();
    this.d.journal?.save({ caller, view: task.view() });
    this.d.log('info', 'task started', { caller, task: task.id, tool });
  }

  /** Runs the task's call under its own routing key, its server's questions going to `channel`. */
  private runTask(
    task: HostedTask,
    args: JsonObject,
    opts: TaskStartOptions,
    run: TaskRunner,
    channel: ClientChannel,
    end: CallDone,
  ): StartedCall {
    const { caller, tool } = task.init;
    const routingKey = `task:${task.id}`;
    const detach = this.d.clientRequests.attach({ id: routingKey, caller, profile: '', clientName: opts.client }, channel, opts.client);
    if (opts.clientCapabilities) this.d.clientRequests.setCapabilities(routingKey, opts.clientCapabilities, opts.client);
    return run(
      caller,
      tool,
      args,
      { client: opts.client, routingKey, onProgress: (p) => task.progress(p) },
      {
        result: (r) => {
          detach();
          end.result(r);
        },
        error: (e) => {
          detach();
          end.error(e);
        },
      },
    );
  }

  /** The task as it is now; a passed-through one as its server says (passed-task.ts). */
  get(caller: string, taskId: string): TaskView | Promise<TaskView> {
    const task = this.find(caller, taskId);
    const passed = this.d.passthrough?.of(taskId);
    return passed ? passed.refresh().then(() => task.view()) : task.view();
  }

  update(caller: string, taskId: string, inputResponses: JsonObject): void {
    this.find(caller, taskId).answer(inputResponses);
  }

  cancel(caller: string, taskId: string): void | Promise<void> {
    const task = this.find(caller, taskId);
    if (task.ended) return;
    const why = 'cancelled by its caller (tasks/cancel)';
    const passed = this.d.passthrough?.of(taskId);
    if (passed) return passed.cancel(why);
    task.cancel(why);
  }

  /**
   * A task of a server that runs tasks itself: kept here (ids, caller, journal, ttl) once its server made
   * it, so a call refused before that leaves no task behind.
   */
  private async startPassed(
    passthrough: PassthroughTasks,
    caller: string,
    entry: ToolEntry,
    args: JsonObject,
    opts: TaskStartOptions,
    run: TaskRunner,
  ): Promise<TaskView> {
    const task = this.newTask(caller, entry.name);
    const made = await passthrough.start(entry, task, args, opts, run);
    this.tasksOf(caller).set(task.id, task);
    this.changed();
    this.d.journal?.save({ caller, view: task.view() });
    if ('plain' in made) task.completed(made.plain);
    else if (made.created) made.apply(made.created);
    return task.view();
  }

  list(caller: string): TaskView[] {
    this.sweep(caller);
    return [...(this.byCaller.get(caller)?.values() ?? [])].sort((a, b) => b.createdAt - a.createdAt).map((t) => t.view());
  }

  listAll(): CallerTask[] {
    const all: Array<CallerTask & { at: number }> = [];
    for (const caller of [...this.byCaller.keys()]) {
      this.sweep(caller);
      for (const t of this.byCaller.get(caller)?.values() ?? []) all.push({ caller, task: t.view(), at: t.createdAt });
    }
    return all.sort((a, b) => b.at - a.at).map(({ caller, task }) => ({ caller, task }));
  }

  onChange(fn: () => void): () => void {
    this.changeListeners.add(fn);
    return () => this.changeListeners.delete(fn);
  }

  watch(caller: string, taskId: string, fn: (view: TaskView) => void): () => void {
    const task = this.find(caller, taskId);
    const id = task.id;
    fn(task.view());
    let fns = this.watchers.get(id);
    if (!fns) this.watchers.set(id, (fns = new Set()));
    const mine = fns;
    mine.add(fn);
    return () => {
      mine.delete(fn);
      if (mine.size === 0 && this.watchers.get(id) === mine) this.watchers.delete(id);
    };
  }

  private changed(task?: HostedTask): void {
    for (const fn of this.changeListeners) fn();
    const fns = task && this.watchers.get(task.id);
    if (!fns) return;
    const view = task.view();
    for (const fn of fns) fn(view);
  }

  /** Every running task fails with `why` (the core stops): a client polling later learns why its task ended. */
  failRunning(why: string): void {
    for (const tasks of this.byCaller.values()) for (const t of tasks.values()) t.abandon(why);
  }

  private find(caller: string, taskId: string): HostedTask {
    this.sweep(caller);
    const task = this.byCaller.get(caller)?.get(taskId);
    // Another caller's id is as unknown as one never made: no error says it exists.
    if (!task) {
      throw new McpdError(
        'INVALID_ARGUMENT',
        `unknown task id ${JSON.stringify(taskId)} for caller "${caller}" (it ended more than its ttlMs ago, or was never this caller's)`,
        {
          specCode: -32602,
        },
      );
    }
    return task;
  }

  private tasksOf(caller: string): Map<string, HostedTask> {
    this.sweep(caller);
    let m = this.byCaller.get(caller);
    if (!m) this.byCaller.set(caller, (m = new Map()));
    return m;
  }

  /** Forgets the caller's tasks whose ttlMs ran out. */
  private sweep(caller: string): void {
    const m = this.byCaller.get(caller);
    if (!m) return;
    const now = Date.now();
    for (const [id, t] of m) {
      if (t.expiresAt === undefined || t.expiresAt > now) continue;
      m.delete(id);
      this.watchers.delete(id);
      this.d.journal?.remove(id);
      this.d.passthrough?.forget(id);
      this.changed();
    }
    if (m.size === 0) this.byCaller.delete(caller);
  }

  private ended(t: HostedTask): void {
    this.d.passthrough?.ended(t.id);
    this.d.journal?.save({ caller: t.init.caller, view: t.view(), expiresAt: t.expiresAt });
    this.d.log('info', 'task ended', { caller: t.init.caller, task: t.id, tool: t.init.tool, status: t.status });
  }
}
