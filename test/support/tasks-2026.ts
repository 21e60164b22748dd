import { waitFor } from './procs.js';
import { rawPost, sse, type HttpGatewayProc } from './http-gateway.js';

export const V = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';
/** A 2026-07-28 request's `_meta` from a client that negotiated the tasks extension (and elicitation). */
export const WITH_TASKS = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
};

export type Json = Record<string, unknown>;
export interface Answer {
  status: number;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

let nextId = 1;
/** One 2026-07-28 request to `mcpdmcp --http` with the routing headers a client sends. */
export async function rpc(gw: HttpGatewayProc, method: string, params: Json, meta: Json = WITH_TASKS): Promise<Answer> {
  const name = [params.name, params.taskId].find((v) => typeof v === 'string') as string | undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': V,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': name } : {}),
  };
  const r = await rawPost(gw.url, headers, { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } });
  const body = r.body.startsWith('event:') ? r.body.split('data: ').pop()! : r.body;
  return { status: r.status, ...(JSON.parse(body) as Json) };
}

/** tasks/get's DetailedTask; an error answer throws. */
export async function taskOf(gw: HttpGatewayProc, taskId: string): Promise<Json> {
  const r = await rpc(gw, 'tasks/get', { taskId });
  if (!r.result) throw new Error(`tasks/get failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** Polls tasks/get (the client's way: there is nothing else to wait on) until `done` holds of the task. */
export async function untilTask(
  gw: HttpGatewayProc,
  taskId: string,
  what: string,
  done: (t: Json) => boolean,
  timeoutMs: number,
): Promise<Json> {
  let last: Json = {};
  await waitFor(`task ${taskId} to be ${what}`, async () => done((last = await taskOf(gw, taskId))), timeoutMs);
  return last;
}

/** A notification as a listen stream carries it. */
export interface Note {
  method: string;
  params: Json;
}

/**
 * A `subscriptions/listen` stream of `gw` that names `taskIds` (SEP-2663's task notifications), read until
 * `enough` holds of what it carried: the acknowledgement first, then the notifications.
 */
export async function listenTasks(gw: HttpGatewayProc, id: string, taskIds: string[], enough: (notes: Note[]) => boolean): Promise<Note[]> {
  const headers = { accept: 'text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'subscriptions/listen' };
  const body = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { taskIds }, _meta: WITH_TASKS } };
  const notes = (events: { data: string }[]) => events.map((e) => JSON.parse(e.data) as Note);
  const { events } = await sse(gw.url, 'POST', headers, body, (events) => enough(notes(events)));
  return notes(events);
}
