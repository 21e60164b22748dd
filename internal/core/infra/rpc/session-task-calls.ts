import type { CallerSession, ControlApi } from '../../../contract/control/control.js';
import type { TaskStartOptions } from '../../../contract/control/control-areas.js';
import { createTaskResult, TASK_MODE_META, TASKS_EXTENSION, type TaskMode } from '../../../contract/model/tasks.js';
import { McpdError } from '../../../shared/errors.js';
import { isJsonObject, type JsonObject } from '../../../shared/json.js';
import type { CallReq } from '../../../contract/areas/tools.js';

/** 2026-07-28's per-request client capabilities, in `params._meta`. */
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
/** SEP-2575's "Missing Required Client Capability". */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** The gateway's task mode of a Session tools/call (TASK_MODE_META), if it set one. */
export function taskModeOf(params: JsonObject): TaskMode | undefined {
  const meta = params._meta;
  const mode = isJsonObject(meta) ? meta[TASK_MODE_META] : undefined;
  return mode === 'offer' || mode === 'none' ? mode : undefined;
}

/**
 * How the core answers a tools/call the gateway marked with a task mode: `plain`, as any call; `task`, with
 * the CreateTaskResult of the task it made; `askFirst`, by the tool's first question (MRTR on this request)
 * and then the task, for a tool that asks before its task exists (TaskToolMode.asksFirst).
 */
export type TaskPlan = { kind: 'plain' } | { kind: 'task'; result: JsonObject } | { kind: 'askFirst'; opts: TaskStartOptions };

/**
 * Decides a marked tools/call: a task-supporting tool offered a task becomes one; a tool that requires a
 * task, called by a client without the extension, is refused with -32021; anything else is a plain call.
 */
export async function taskPlan(
  api: ControlApi,
  session: CallerSession,
  params: JsonObject,
  call: CallReq,
  mode: TaskMode,
): Promise<TaskPlan> {
  const { support, asksFirst } = await api.tasks.modeOf(session.caller, call.name);
  if (mode === 'none') {
    if (support !== 'required') return { kind: 'plain' };
    throw new McpdError(
      'FAILED_PRECONDITION',
      `tool "${call.name}" runs only as a task, and this request did not declare the ${TASKS_EXTENSION} extension in its client capabilities`,
      { specCode: MISSING_REQUIRED_CLIENT_CAPABILITY, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
    );
  }
  if (support === 'forbidden') return { kind: 'plain' };
  const meta = params._meta;
  const caps = isJsonObject(meta) ? meta[CLIENT_CAPABILITIES_META] : undefined;
  const opts: TaskStartOptions = { client: session.clientName, clientCapabilities: isJsonObject(caps) ? caps : undefined };
  if (asksFirst) return { kind: 'askFirst', opts };
  return { kind: 'task', result: createTaskResult(await api.tasks.start(session.caller, call.name, call.args, opts)) };
}
