import type { TasksApi } from '../../../contract/control/control-areas.js';
import type { TaskRow } from '../../../contract/dashboard/dashboard-events.js';
import type { CallerTask } from '../../../contract/model/tasks.js';

/**
 * Changes closer together than this make one push: a task reporting progress many times a second (or a
 * burst of tasks starting) costs the page a list every tenth of a second at most, not one per change.
 */
const COALESCE_MS = 100;

/** A task as the Tasks page lists it: the envelope, without the result, error or input requests. */
export function taskRow({ caller, task: t }: CallerTask): TaskRow {
  const row: TaskRow = {
    caller,
    taskId: t.taskId,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    inputs: Object.keys(t.inputRequests ?? {}).length,
  };
  if (t.statusMessage !== undefined) row.statusMessage = t.statusMessage;
  if (t.tool !== undefined) row.tool = t.tool;
  if (t.server !== undefined) row.server = t.server;
  return row;
}

/**
 * The rows of one caller's tasks (or every caller's), sent at once and then after each change of any task;
 * an unchanged list is not sent again. Returns the stop.
 */
export function watchTaskRows(tasks: TasksApi, caller: string | undefined, send: (rows: TaskRow[]) => void): () => void {
  let last = '';
  let timer: NodeJS.Timeout | undefined;
  const push = (): void => {
    timer = undefined;
    const rows = tasks
      .listAll()
      .filter((t) => caller === undefined || t.caller === caller)
      .map(taskRow);
    const text = JSON.stringify(rows);
    if (text === last) return;
    last = text;
    send(rows);
  };
  const off = tasks.onChange(() => {
    if (timer) return;
    timer = setTimeout(push, COALESCE_MS);
    // The core's stop does not wait for a page's next list.
    timer.unref();
  });
  push();
  return () => {
    off();
    clearTimeout(timer);
  };
}
