import { SERVER_TASK_LISTEN } from '../../../contract/model/tasks.js';
import { isMcpdError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/json.js';
import type { CoreLog } from '../area-deps.js';
import type { ModernPassedTask } from './passed-task-2026.js';
import { CONTROL_TIMEOUT_MS } from './passed-task.js';

/** What the listens need of the pools: the instance a task's key is on, and requests to it. */
export interface TaskListenPools {
  pinnedInstance(fingerprint: string, key: string): string | undefined;
  pinnedRequest(fingerprint: string, key: string, method: string, params: JsonObject, timeoutMs: number): Promise<JsonObject>;
}

/** The live tasks of one instance, and what its stream names now. */
interface InstanceTasks {
  fingerprint: string;
  /** By the server's id. */
  live: Map<string, ModernPassedTask>;
  /** The server's ids the instance's stream was last acknowledged for. */
  named: Set<string>;
  /** A key still pinned to the instance, to reach it once its last task has ended. */
  lastKey: string;
  /** The running update: resolves once the stream names `live`. */
  syncing?: Promise<void>;
}

/**
 * The core listens to each 2026-07-28 server instance for its own tasks while any of them is live: one
 * `subscriptions/listen` stream per instance (SERVER_TASK_LISTEN, kept by the session), naming every
 * task the instance holds for the core, and closed when none is left. So the server's
 * `notifications/tasks` move the tasks as a tasks/get answer would, whether or not a client is watching:
 * the core's task state is what its watchers, the dashboard and the journal are told (decision 76).
 * A task newly named is asked for once (tasks/get) after the stream is acknowledged, since a server
 * need not repeat what changed before it was listened to.
 */
export class ServerTaskListens {
  private readonly instances = new Map<string, InstanceTasks>();

  constructor(
    private readonly pools: TaskListenPools,
    private readonly log: CoreLog,
  ) {}

  /** A live task: its instance's stream names it from now on. */
  add(task: ModernPassedTask): void {
    const { fingerprint, key, serverTaskId } = task.init;
    const instance = this.pools.pinnedInstance(fingerprint, key);
    if (instance === undefined) return;
    const id = JSON.stringify([fingerprint, instance]);
    let on = this.instances.get(id);
    if (!on) {
      on = { fingerprint, live: new Map(), named: new Set(), lastKey: key };
      this.instances.set(id, on);
    }
    on.live.set(serverTaskId, task);
    // Fire and forget: a sync never rejects (a refused list is logged, and the task moves when polled).
    void this.sync(id, on);
  }

  /** The task ended: resolves once its instance's stream no longer names it (its key may be unpinned then). */
  remove(task: ModernPassedTask): Promise<void> {
    for (const [id, on] of this.instances) {
      if (on.live.get(task.init.serverTaskId) !== task) continue;
      on.live.delete(task.init.serverTaskId);
      on.lastKey = task.init.key;
      return this.sync(id, on);
    }
    return Promise.resolve();
  }

  /** The instance's stream was opened again: its tasks may have changed unheard meanwhile. */
  relistened(fingerprint: string, instance: string): void {
    const on = this.instances.get(JSON.stringify([fingerprint, instance]));
    // Fire and forget: refresh never rejects; a failed tasks/get settles the task itself (passed-task-2026.ts).
    for (const task of on?.live.values() ?? []) void task.refresh();
  }

  private sync(id: string, on: InstanceTasks): Promise<void> {
    if (on.syncing) return on.syncing;
    if (sameIds(on.named, on.live)) {
      this.settled(id, on);
      return Promise.resolve();
    }
    on.syncing = this.converge(id, on);
    return on.syncing;
  }

  /**
   * Sends the instance's list until what its stream names is what is live (lists change while one is
   * sent). `syncing` is cleared in the very turn the lists are found equal, so a change after that
   * starts a new round (sync checks first, so the loop always awaits before it ends).
   */
  private async converge(id: string, on: InstanceTasks): Promise<void> {
    try {
      while (!sameIds(on.named, on.live)) await this.round(on);
    } finally {
      on.syncing = undefined;
      this.settled(id, on);
    }
  }

  /** An instance with no live task is forgotten (its stream was closed). */
  private settled(id: string, on: InstanceTasks): void {
    if (on.live.size === 0 && this.instances.get(id) === on) this.instances.delete(id);
  }

  /** One list sent; the tasks it names first are asked for once it is acknowledged. */
  private async round(on: InstanceTasks): Promise<void> {
    const ids = [...on.live.keys()];
    const key = on.live.values().next().value?.init.key ?? on.lastKey;
    try {
      await this.pools.pinnedRequest(on.fingerprint, key, SERVER_TASK_LISTEN, { taskIds: ids }, CONTROL_TIMEOUT_MS);
    } catch (e) {
      // An instance that is gone fails its tasks on its own (onPinLost); a refusal leaves them moving when polled.
      if (!isMcpdError(e) || e.reason !== 'UNAVAILABLE') {
        this.log('info', "listening for a server's task notifications failed; its tasks move when polled", {
          error: (e as Error).message,
        });
      }
      on.named = new Set(ids);
      return;
    }
    const fresh = ids.filter((sid) => !on.named.has(sid));
    on.named = new Set(ids);
    // Fire and forget: refresh never rejects; a failed tasks/get settles the task itself (passed-task-2026.ts).
    for (const sid of fresh) void on.live.get(sid)?.refresh();
  }
}

function sameIds(named: Set<string>, live: Map<string, unknown>): boolean {
  if (named.size !== live.size) return false;
  for (const id of live.keys()) if (!named.has(id)) return false;
  return true;
}
