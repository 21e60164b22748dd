import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../contract/gen/mcpd/control/v1/control.js';
import { McpdError } from '../shared/errors.js';
import { estimateTokens } from '../contract/model/tool-tokens.js';
import { collectStream, ControlCalls } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';
import { renderTable, firstLine, truncate } from './table.js';
import { openGrpcSession } from '../contract/grpc/grpc-session.js';
import { CLIENT_CAPABILITIES_NOTIFICATION } from '../contract/control/client-requests.js';
import type { JsonObject } from '../shared/json.js';
import { fileAnswerer, terminalAnswerer, type InputAnswerer } from './ctl-input-requests.js';

export async function toolsCommand(client: ControlPlaneClient, caller: string, out: Out): Promise<void> {
  const tools: pb.ToolDefinition[] = [];
  let cursor = '';
  let etag = '';
  let collisions: pb.Collision[] = [];
  let failures: pb.ServerFailure[] = [];
  do {
    const page = await new ControlCalls(client).listTools({ caller, cursor, pageSize: 0 });
    if (!cursor) failures = page.failures;
    tools.push(...page.tools);
    cursor = page.nextCursor;
    etag = page.etag;
    collisions = page.collisions;
  } while (cursor);
  // The client gets the same list without these servers: say which and why, in full.
  for (const f of failures) out.warn(`warning: server ${f.server} could not be listed, its tools are missing: ${f.error}\n`);
  if (out.json) {
    const parsed = tools.map((t) => ({
      name: t.name,
      server: t.server,
      definitionHash: t.definitionHash,
      tool: JSON.parse(t.toolJson.toString('utf8')),
    }));
    const estimatedTokens = tools.reduce((n, t) => n + estimateTokens(t.toolJson.toString('utf8')), 0);
    return out.write(`${JSON.stringify({ etag, count: tools.length, estimatedTokens, tools: parsed, collisions, failures }, null, 2)}\n`);
  }
  let tokens = 0;
  const rows = tools.map((t) => {
    const text = t.toolJson.toString('utf8');
    tokens += estimateTokens(text);
    const def = JSON.parse(text) as { description?: string };
    return [t.name, t.server, truncate(firstLine(def.description ?? ''), 70)];
  });
  out.write(renderTable(['TOOL', 'SERVER', 'DESCRIPTION'], rows));
  out.write(`${tools.length} tools, ~${tokens} tokens (estimated, 4 characters of JSON per token), etag ${etag}\n`);
  for (const c of collisions) out.write(`collision: ${c.name} (${c.servers.join(', ')}): ${c.resolution}\n`);
}

/**
 * `mcpdctl call`. A server that asks for input during the call (elicitation, sampling, roots; a 2026
 * server's InputRequiredResult arrives as the same requests) is answered from `--input-responses FILE`, or
 * on the terminal when stdin is one; then the call goes over a Session, which carries the server's
 * requests to us. Without either it goes over the gRPC CallTool as before, where such requests are refused.
 */
export async function callCommand(
  client: ControlPlaneClient,
  caller: string,
  tool: string,
  argsJson: string,
  timeoutMs: number,
  out: Out,
  inputResponses?: string,
): Promise<number> {
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch (e) {
    throw new McpdError('INVALID_ARGUMENT', `--args is not valid JSON: ${(e as Error).message}`);
  }
  const answerer = inputResponses
    ? fileAnswerer(inputResponses)
    : process.stdin.isTTY
      ? terminalAnswerer(process.stdin, process.stderr)
      : undefined;
  const result = answerer
    ? await callOverSession(client, { caller, tool, args, timeoutMs }, answerer, out)
    : await callOverGrpc(client, caller, tool, argsJson, timeoutMs, out);
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  if (out.json) out.write(`${JSON.stringify(r, null, 2)}\n`);
  else for (const c of r.content ?? []) out.write(c.type === 'text' ? `${c.text}\n` : `[${c.type}]\n`);
  return r.isError ? 1 : 0;
}

function progressLine(p: { progress: number; total?: number; message?: string }): string {
  return `progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''} ${p.message ?? ''}\n`;
}

async function callOverSession(
  client: ControlPlaneClient,
  call: { caller: string; tool: string; args: unknown; timeoutMs: number },
  answer: InputAnswerer,
  out: Out,
): Promise<unknown> {
  const session = await openGrpcSession(client, { caller: call.caller, pid: process.pid, clientName: 'mcpdctl', previousSessionId: '' });
  try {
    // What mcpdctl can answer: the core refuses, naming it, a request this client did not declare.
    session.notify(CLIENT_CAPABILITIES_NOTIFICATION, { capabilities: { elicitation: {}, sampling: {}, roots: {} }, clientName: 'mcpdctl' });
    session.onRequest(async (method, params) => {
      if (!out.json) out.warn(`input request: ${method}\n`);
      return answer(method, params);
    });
    const params = { name: call.tool, arguments: call.args } as JsonObject;
    const onProgress = out.json ? undefined : (p: { progress: number; total?: number; message?: string }) => out.write(progressLine(p));
    return await session.request('tools/call', params, { timeoutMs: call.timeoutMs || undefined, onProgress });
  } finally {
    session.close();
  }
}

async function callOverGrpc(
  client: ControlPlaneClient,
  caller: string,
  tool: string,
  argsJson: string,
  timeoutMs: number,
  out: Out,
): Promise<unknown> {
  let result: unknown;
  const stream = client.callTool({ caller, name: tool, argumentsJson: Buffer.from(argsJson), routingKey: '', timeoutMs });
  await collectStream(stream, (ev) => {
    if (ev.progress && !out.json)
      out.write(`progress ${ev.progress.progress}${ev.progress.hasTotal ? `/${ev.progress.total}` : ''} ${ev.progress.message}\n`);
    if (ev.resultJson) result = JSON.parse(ev.resultJson.toString('utf8'));
  });
  return result;
}
