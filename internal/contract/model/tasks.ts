import type { JsonObject } from '../../shared/json.js';

/** The tasks extension's name (SEP-2663), under `capabilities.extensions` and a client's declared extensions. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * What the gateway tells the core on a Session `tools/call` from a 2026-07-28 client, in
 * `_meta["mcpd/taskMode"]`: `offer` — the client negotiated the tasks extension, so a task-supporting
 * tool becomes a task; `none` — it did not, so a tool that requires a task is refused (-32021).
 * Absent (2025 sessions, gRPC): every tool runs as a plain call.
 */
export const TASK_MODE_META = 'mcpd/taskMode';
export type TaskMode = 'offer' | 'none';

/** SEP-2663's push of a task's state (its DetailedTask) to a client listening for it (`subscriptions/listen` with `taskIds`). */
export const TASK_NOTIFICATION = 'notifications/tasks';

/**
 * What the core asks a 2026-07-28 server's session for, never sent as is: `{ taskIds }` — the server's
 * own ids of the tasks it holds for the core — names the one `subscriptions/listen` stream the session
 * keeps for that server's `notifications/tasks` (an empty list closes it). Answered once the server
 * acknowledged the stream.
 */
export const SERVER_TASK_LISTEN = 'mcpd/tasks/listen';

/**
 * What such a session tells the core, never a server's: the task stream ended and was opened again, so
 * a change to its tasks (`{ taskIds }`) may have gone unheard meanwhile.
 */
export const SERVER_TASK_RELISTENED = 'mcpd/tasks/relistened';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** How a tool takes tasks: its definition's `execution.taskSupport` (absent = forbidden). */
type TaskSupport = 'forbidden' | 'optional' | 'required';

function taskSupportOf(definition: JsonObject): TaskSupport {
  const execution = definition.execution;
  if (typeof execution !== 'object' || execution === null || Array.isArray(execution)) return 'forbidden';
  const s = (execution as JsonObject).taskSupport;
  return s === 'optional' || s === 'required' ? s : 'forbidden';
}

/**
 * A tool definition's `_meta` key by which a server says the tool asks its client before its task exists
 * (SEP-2663's MRTR-then-task composition): offered a task, the call runs as a plain call until the client
 * answers the server's first question (the MRTR retry), and becomes the task then. A classic server's
 * request cannot say it; its tool's definition can.
 */
const ASK_BEFORE_TASK_META = 'mcpd/askBeforeTask';

/** How a tool takes tasks, as the core decides a task-offered call by it. */
export interface TaskToolMode {
  support: TaskSupport;
  /** ASK_BEFORE_TASK_META is true in the definition's `_meta`. */
  asksFirst: boolean;
}

export function taskToolModeOf(definition: JsonObject): TaskToolMode {
  const meta = definition._meta;
  const asksFirst =
    typeof meta === 'object' && meta !== null && !Array.isArray(meta) && (meta as JsonObject)[ASK_BEFORE_TASK_META] === true;
  return { support: taskSupportOf(definition), asksFirst };
}

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A task as its caller sees it (SEP-2663's DetailedTask without `resultType`): `result` once completed,
 * `error` once failed, `inputRequests` while input_required. Times are ISO-8601.
 */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the task is kept once it ended (integer ms). */
  ttlMs: number;
  pollIntervalMs: number;
  /** The tool the task runs (the caller's name for it): for lists, not part of SEP-2663's envelope. */
  tool?: string;
  /** The profile's server that runs the tool, when known at the start: for lists, as `tool`. */
  server?: string;
  result?: JsonObject;
  error?: TaskError;
  inputRequests?: Record<string, JsonObject>;
}

/** The CreateTaskResult fields (SEP-2663): a flat task envelope with no result, error or input requests. */
export function createTaskResult(t: TaskView): JsonObject {
  return {
    resultType: 'task',
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    pollIntervalMs: t.pollIntervalMs,
  };
}

/** The tasks/get result (DetailedTask): the envelope plus what the status carries. */
export function detailedTask(t: TaskView): JsonObject {
  const out: JsonObject = { ...createTaskResult(t), resultType: 'complete' };
  if (t.result !== undefined) out.result = t.result;
  if (t.error !== undefined) out.error = t.error as unknown as JsonObject;
  if (t.inputRequests !== undefined) out.inputRequests = t.inputRequests;
  return out;
}

/** A task with the caller it belongs to: the operator's view of every caller's tasks (the dashboard). */
export interface CallerTask {
  caller: string;
  task: TaskView;
}
