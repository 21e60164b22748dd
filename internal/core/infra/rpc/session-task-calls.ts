import type { CallerSession, ControlApi } from '../../../contract/control/control.js';
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
 * A tools/call the gateway marked with a task mode, when it is no plain call: a task-supporting tool
 * offered a task becomes one (the answer is its CreateTaskResult); a tool that requires a task, called by
 * a client without the extension, is refused with -32021. Undefined: a plain call.
 */
export async function taskAnswer(
  api: ControlApi,
  session: CallerSession,
  params: JsonObject,
  call: CallReq,
  mode: TaskMode,
): Promise<JsonObject | undefined> {
  const support = await api.tasks.supportOf(session.caller, call.name);
  if (mode === 'none') {
    if (support !== 'required') return undefined;
    throw new McpdError(
      'FAILED_PRECONDITION',
      `tool "${call.name}" runs only as a task, and this request did not declare the ${TASKS_EXTENSION} extension in its client capabilities`,
      { specCode: MISSING_REQUIRED_CLIENT_CAPABILITY, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
    );
  }
  if (support === 'forbidden') return undefined;
  const meta = params._meta;
  const caps = isJsonObject(meta) ? meta[CLIENT_CAPABILITIES_META] : undefined;
  const task = await api.tasks.start(session.caller, call.name, call.args, {
    client: session.clientName,
    clientCapabilities: isJsonObject(caps) ? caps : undefined,
  });
  return createTaskResult(task);
}
