import type { ControlApi } from '../control/control.js';
import { detailedTask, TASK_NOTIFICATION, type TaskView } from '../model/tasks.js';
import { isMcpdError, McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { SessionRequestContext } from '../session/session-handler.js';

/** Ids one watch may name: as many as a caller may have tasks running (task-host.ts). */
const MAX_WATCHED = 64;

/** The notification's params: the task's DetailedTask, as tasks/get would answer it at that moment. */
function taskNotification(view: TaskView): JsonObject {
  const { resultType: _notAResult, ...task } = detailedTask(view);
  return task;
}

function taskIdsOf(params: JsonObject): string[] {
  const ids = params.taskIds;
  if (!Array.isArray(ids) || !ids.every((id): id is string => typeof id === 'string') || ids.length > MAX_WATCHED) {
    throw new McpdError('INVALID_ARGUMENT', `mcpd/tasks/watch needs "taskIds", an array of at most ${MAX_WATCHED} task ids`, {
      specCode: -32602,
    });
  }
  return [...new Set(ids)];
}

/**
 * `mcpd/tasks/watch` on the Session: each of `taskIds` that is a task of the session's caller is pushed
 * as `notifications/tasks` after each of its changes, until the session ends; the answer names those
 * ids (another caller's id is left out, as unknown as one never made). Each task's present state goes
 * first (TasksApi.watch), so a change between the client's CreateTaskResult and its watch is not missed.
 */
export async function watchTasksSession(api: ControlApi, params: JsonObject, ctx: SessionRequestContext): Promise<JsonObject> {
  const watched: string[] = [];
  const stops: (() => void)[] = [];
  const push = (view: TaskView) => ctx.notify(TASK_NOTIFICATION, taskNotification(view));
  ctx.onClose(() => stops.forEach((stop) => stop()));
  for (const id of taskIdsOf(params)) {
    try {
      stops.push(api.tasks.watch(ctx.session.caller, id, push));
      watched.push(id);
    } catch (e) {
      // Not the caller's task (or forgotten): not watched, and the answer says so by leaving it out.
      if (!isMcpdError(e) || e.reason !== 'INVALID_ARGUMENT') throw e;
    }
  }
  return { taskIds: watched };
}
