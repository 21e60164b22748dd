import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { TASKS_EXTENSION } from '../../../contract/model/tasks.js';
import { isJsonObject, type JsonObject } from '../../../shared/json.js';

const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** The result decoder of SDK v2's era codec: what it returns for a result it accepts as is. */
interface WireCodec {
  decodeResult(method: string, raw: unknown): unknown;
}

/**
 * What of SDK v2's Client this reaches past its public surface for: its public `request` refuses a
 * `resultType: "task"` answer (UnsupportedResultType) and offers no way to accept one, while its request
 * funnel takes the codec that decodes the answer. The names are checked at each call: an SDK that
 * renamed them fails the task call with a clear error, never a plain call.
 */
interface ClientInternals {
  _capabilities?: JsonObject;
  _resolveOutboundCodec?(method: string): WireCodec;
  _requestWithSchemaViaCodec?(
    codec: WireCodec,
    request: { method: string; params: JsonObject },
    schema: unknown,
    opts: unknown,
  ): Promise<unknown>;
}

/**
 * A request about a server's own task (SEP-2663): a task-augmented tools/call (the pass-through sends
 * `taskParams`) or tasks/get, tasks/update, tasks/cancel. Each carries the tasks extension in its
 * per-request clientCapabilities, the only way a 2026 client opts in, which the core never does for
 * a plain call: a server would answer a plain call with a task no one polls.
 */
export function isTaskRequest(method: string, taskParams: JsonObject | undefined): boolean {
  return TASK_METHODS.has(method) || (method === 'tools/call' && taskParams !== undefined);
}

/** Sends a task request on `client`, a CreateTaskResult (`resultType: "task"`) answered as it came. */
export async function modernTaskRequest(
  client: ModernClient,
  method: string,
  params: JsonObject,
  schema: unknown,
  opts: unknown,
): Promise<JsonObject> {
  const c = client as unknown as ClientInternals;
  if (typeof c._resolveOutboundCodec !== 'function' || typeof c._requestWithSchemaViaCodec !== 'function') {
    throw new Error(`this SDK v2 client cannot send ${method} for a server's task (its request internals changed)`);
  }
  const base = c._resolveOutboundCodec(method);
  const codec: WireCodec = Object.create(base as object) as WireCodec;
  codec.decodeResult = (m, raw) =>
    isJsonObject(raw) && raw.resultType === 'task' ? { kind: 'complete', result: raw } : base.decodeResult(m, raw);
  const caps = c._capabilities ?? {};
  const extensions = isJsonObject(caps.extensions) ? caps.extensions : {};
  const meta = isJsonObject(params._meta) ? params._meta : {};
  const withTasks = { ...caps, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
  const request = { method, params: { ...params, _meta: { ...meta, [CLIENT_CAPABILITIES_META]: withTasks } } };
  return (await c._requestWithSchemaViaCodec.call(client, codec, request, schema, opts)) as JsonObject;
}

/**
 * `subscriptions/listen` naming a server's own tasks (`notifications.taskIds`), which a server refuses
 * (-32021) unless the listen's per-request clientCapabilities carry the tasks extension. SDK v2's `listen`
 * builds that envelope from the client's capabilities, which must not carry the extension for other
 * requests (a plain call would become a task): the extension is there only while `listen` builds and
 * sends its request, which it does before its first await.
 */
export function listenForTasks(client: ModernClient, taskIds: string[], opts: { timeout: number }): ReturnType<ModernClient['listen']> {
  const c = client as unknown as ClientInternals;
  if (c._capabilities === undefined)
    return Promise.reject(new Error('this SDK v2 client cannot listen for tasks (its capabilities moved)'));
  const own = c._capabilities;
  const extensions = isJsonObject(own.extensions) ? own.extensions : {};
  c._capabilities = { ...own, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
  try {
    // SDK v2's filter type predates SEP-2663's taskIds; the SDK passes the filter on as it is given.
    return client.listen({ taskIds } as Parameters<ModernClient['listen']>[0], opts);
  } finally {
    c._capabilities = own;
  }
}
