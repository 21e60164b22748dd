import type { TasksApi } from '../../../contract/control/control-areas.js';
import { elicitFields, elicitProblems } from '../../../contract/dashboard/elicitation-form.js';
import { isJsonObject, type JsonObject } from '../../../shared/json.js';
import type { Args } from './socket-args.js';

/**
 * `answer-task`: the page answers an elicitation a task waits on, as the task's caller (`tasks/update`
 * through the dashboard's door view). The request must still be waiting — one answered, withdrawn or
 * ended meanwhile is refused, saying so — and an accepted form must fit the server's requestedSchema.
 */
export async function answerTask(tasks: TasksApi, a: Args): Promise<null> {
  const caller = a.str('caller');
  const taskId = a.str('taskId');
  const key = a.str('key');
  const action = a.str('action');
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    throw new Error(`answer-task: "action" must be accept, decline or cancel, not "${action}"`);
  }
  const task = await tasks.get(caller, taskId);
  const req = task.inputRequests?.[key];
  if (!req) {
    throw new Error(
      `answer-task: task ${taskId} of "${caller}" waits for no input "${key}" (it was answered, withdrawn, or the task ended)`,
    );
  }
  if (req.method !== 'elicitation/create') {
    throw new Error(`answer-task: the dashboard answers a task's elicitation only; "${key}" is ${String(req.method)}`);
  }
  const params = isJsonObject(req.params) ? req.params : {};
  let response: JsonObject = { action };
  if (action === 'accept' && params.mode !== 'url') {
    const content = a.object('content');
    const problems = elicitProblems(elicitFields(params.requestedSchema), content);
    if (problems.length) throw new Error(`answer-task: the content does not fit the server's requestedSchema: ${problems.join('; ')}`);
    response = { action, content };
  }
  tasks.update(caller, taskId, { [key]: response });
  return null;
}
