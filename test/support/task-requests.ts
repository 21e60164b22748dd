// 2026-07-28 requests about tasks (SEP-2663) to an `mcpdmcp --http` gateway, as a client sends them.
import { rawPost, type HttpGatewayProc } from './http-gateway.js';
import { waitFor } from './procs.js';

const V = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';
export const WITH_TASKS = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
};
export const WITHOUT_TASKS = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

export type Json = Record<string, unknown>;
interface Answer {
  status: number;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

let nextId = 1;
/** One 2026-07-28 request with the routing headers a client sends. */
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

export async function taskOf(gw: HttpGatewayProc, taskId: string): Promise<Json> {
  const r = await rpc(gw, 'tasks/get', { taskId });
  if (!r.result) throw new Error(`tasks/get failed: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** Polls tasks/get (the client's way: there is nothing else to wait on) until the task is in `status`. */
export async function until(gw: HttpGatewayProc, taskId: string, status: string): Promise<Json> {
  let last: Json = {};
  await waitFor(`task ${taskId} to be ${status}`, async () => (last = await taskOf(gw, taskId)).status === status, 20_000);
  return last;
}
