import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { SERVER_TASK_RELISTENED } from '../../../contract/model/tasks.js';
import type { JsonObject } from '../../../shared/json.js';
import { KeptListen } from './kept-listen.js';
import { listenForTasks } from './modern-task-request.js';

/** What the task stream tells the session it belongs to (a part of ModernListens' hooks). */
export interface TaskListenHooks {
  alive(): boolean;
  notify(method: string, params: JsonObject): void;
  log(line: string): void;
}

/**
 * The one `subscriptions/listen` stream a 2026-07-28 session keeps for its server's own tasks (SEP-2663:
 * `notifications.taskIds`), so the server's `notifications/tasks` reach the core without a tasks/get. The
 * core names every live task the server holds for it; each new list replaces the stream: the new one is
 * opened first and the old one closed once the new one is acknowledged, so no change falls between the
 * two. One stream per session, however many tasks. A stream the server ends is opened again
 * (kept-listen.ts), and the core is told which tasks may have changed unheard meanwhile.
 */
export class TaskListen {
  private kept?: KeptListen;
  private stopped = false;
  /** Lists are applied one after the other, in the order asked. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: ModernClient,
    private readonly hooks: TaskListenHooks,
    private readonly ackMs: number,
  ) {}

  /** Names these task ids from now on; resolves once the server acknowledged it (an empty list closes the stream). */
  name(taskIds: string[]): Promise<JsonObject> {
    const ids = [...new Set(taskIds)];
    const run = this.queue.then(() => this.replace(ids));
    // Swallowed here: the caller of `name` gets the failure; the next list is tried all the same.
    this.queue = run.catch(() => {});
    return run;
  }

  /** The session ends: the stream is closed and nothing is opened again. */
  async stop(): Promise<void> {
    this.stopped = true;
    const kept = this.kept;
    this.kept = undefined;
    await kept?.stop();
  }

  private async replace(ids: string[]): Promise<JsonObject> {
    const old = this.kept;
    if (ids.length === 0 || this.stopped) {
      this.kept = undefined;
      await old?.stop();
      return { taskIds: [] };
    }
    const open = () => listenForTasks(this.client, ids, { timeout: this.ackMs });
    const first = await open();
    if (this.stopped) {
      // Ignored: the session ends; closing is best effort.
      await first.close().catch(() => {});
      return { taskIds: [] };
    }
    this.kept = new KeptListen(
      {
        open,
        alive: () => !this.stopped && this.hooks.alive(),
        lost: (why) => this.hooks.log(`[mcpd] subscriptions/listen for ${ids.length} task(s) ended (${why}); re-listening`),
        back: (attempts) => {
          this.hooks.log(`[mcpd] subscriptions/listen for tasks is back (after ${attempts} attempt${attempts === 1 ? '' : 's'})`);
          this.hooks.notify(SERVER_TASK_RELISTENED, { taskIds: ids });
        },
      },
      first,
    );
    await old?.stop();
    return { taskIds: ids };
  }
}
