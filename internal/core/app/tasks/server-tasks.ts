import { TASKS_EXTENSION, TERMINAL_STATUSES, type TaskStatus } from '../../../contract/model/tasks.js';
import { isJsonObject, type JsonObject } from '../../../shared/json.js';

/**
 * How a downstream server implements tasks itself, from its capabilities: `2025` — the 2025-11-25
 * experimental tasks (`capabilities.tasks.requests.tools.call`); `2026` — SEP-2663's extension
 * (`capabilities.extensions["io.modelcontextprotocol/tasks"]`); undefined — it does not.
 */
export type ServerTaskEra = '2025' | '2026';

export function serverTaskEra(capabilities: JsonObject | undefined): ServerTaskEra | undefined {
  const extensions = capabilities?.extensions;
  if (isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION])) return '2026';
  const tasks = capabilities?.tasks;
  const requests = isJsonObject(tasks) ? tasks.requests : undefined;
  const tools = isJsonObject(requests) ? requests.tools : undefined;
  return isJsonObject(tools) && isJsonObject(tools.call) ? '2025' : undefined;
}

/**
 * What a 2025-11-25 server says of its task (the `Task` of CreateTaskResult and of tasks/get). Its `ttl`
 * and `pollInterval` are not passed on: the core keeps the ended task (and its result) for its own ttlMs.
 */
export interface ServerTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
}

const STATUSES: ReadonlySet<string> = new Set(['working', 'input_required', ...TERMINAL_STATUSES]);

/** A 2025-11-25 `Task` object, or undefined when `raw` is none (a server that ran the call plainly). */
export function serverTaskOf(raw: unknown): ServerTask | undefined {
  if (!isJsonObject(raw) || typeof raw.taskId !== 'string' || raw.taskId === '') return undefined;
  if (typeof raw.status !== 'string' || !STATUSES.has(raw.status)) return undefined;
  const t: ServerTask = { taskId: raw.taskId, status: raw.status as TaskStatus };
  if (typeof raw.statusMessage === 'string') t.statusMessage = raw.statusMessage;
  return t;
}

/** The CreateTaskResult of a task-augmented tools/call: its `task` (2025), or itself when `resultType: "task"` (2026). */
export function createdTaskOf(result: JsonObject, era: ServerTaskEra): ServerTask | undefined {
  if (era === '2026') return result.resultType === 'task' ? serverTaskOf(result) : undefined;
  return serverTaskOf(result.task);
}
