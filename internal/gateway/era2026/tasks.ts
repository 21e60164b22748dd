import { TASK_MODE_META, TASKS_EXTENSION } from '../../contract/model/tasks.js';
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import { errorBody } from '../fast-tool-calls.js';
import type { ReplyChannel } from './channel.js';
import type { Lane, LanePool } from './lanes.js';
import { EraError, MISSING_REQUIRED_CLIENT_CAPABILITY, type RequestEnvelope } from './protocol.js';
import { mapError } from './results.js';

/** The tasks extension's methods (SEP-2663); tasks/result and tasks/list are gone from it, so unknown here. */
export const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** The request's client declared the tasks extension (per request: 2026-07-28 has no session to remember it). */
function negotiatedTasks(envelope: RequestEnvelope): boolean {
  const ext = envelope.clientCapabilities.extensions;
  return isJsonObject(ext) && ext[TASKS_EXTENSION] !== undefined;
}

/** Refuses (-32021, SEP-2663) what only a client that declared the tasks extension may ask: `what` names it. */
export function requireTasks(envelope: RequestEnvelope, what: string): void {
  if (negotiatedTasks(envelope)) return;
  throw new EraError(
    400,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in _meta["${CLIENT_CAPABILITIES_META}"].extensions`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/**
 * Has the lane's core Session push the changes of those of `taskIds` that are its caller's (as
 * `notifications/tasks`, each task's present state first); resolves with the ids the core watches.
 */
export async function watchTasks(lane: Lane, taskIds: string[]): Promise<string[]> {
  const core = lane.gateway.coreSession;
  if (!core) throw new Error('the lane has no core Session');
  const r = await (await core()).request('mcpd/tasks/watch', { taskIds });
  const watched = isJsonObject(r) && Array.isArray(r.taskIds) ? r.taskIds : [];
  return watched.filter((id): id is string => typeof id === 'string');
}

/** What `server/discover` adds to the lanes' capabilities: the tasks extension, hosted by the core. */
export function withTasksExtension(capabilities: JsonObject): JsonObject {
  const ext = isJsonObject(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...ext, [TASKS_EXTENSION]: {} } };
}

/**
 * A tools/call's params for the core: the task mode the core decides by (offer a task, or refuse a tool
 * that needs one) and the client's capabilities, which a task's input requests are checked against.
 */
export function toolCallForCore(params: JsonObject, envelope: RequestEnvelope): JsonObject {
  const meta = isJsonObject(params._meta) ? params._meta : {};
  return {
    ...params,
    _meta: {
      ...meta,
      [TASK_MODE_META]: negotiatedTasks(envelope) ? 'offer' : 'none',
      [CLIENT_CAPABILITIES_META]: envelope.clientCapabilities,
    },
  };
}

/**
 * tasks/get, tasks/update, tasks/cancel: refused (-32021) unless the request declared the extension, else
 * sent on a lane's core Session to the core's task host, which knows the caller's tasks whatever lane or
 * gateway process made them. Every answer is `resultType: complete`.
 */
export async function serveTask(
  lanes: LanePool,
  method: string,
  params: JsonObject,
  envelope: RequestEnvelope,
  reply: ReplyChannel,
  left: AbortSignal,
): Promise<void> {
  requireTasks(envelope, method);
  const { _meta: _dropped, ...rest } = params;
  const lane = await lanes.acquire(left);
  let answer: JsonObject;
  try {
    const core = lane.gateway.coreSession;
    if (!core) throw new Error('the lane has no core Session');
    const result = await (await core()).request(method, rest);
    answer = { ...(isJsonObject(result) ? result : {}), resultType: 'complete' };
  } catch (e) {
    lanes.release(lane);
    const body = errorBody(e) as { code: number; message: string; data?: JsonObject };
    reply.error(mapError(method, params, body));
    return;
  }
  lanes.release(lane);
  reply.result(answer);
}
