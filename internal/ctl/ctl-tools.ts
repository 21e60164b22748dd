import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../contract/gen/mcpd/control/v1/control.js';
import { McpdError } from '../shared/errors.js';
import { estimateTokens } from '../contract/model/tool-tokens.js';
import { collectStream, ControlCalls } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';
import { callerChannels } from './ctl-resources.js';
import { contextTools } from '../contract/context/context-listing.js';
import { renderTable, firstLine, truncate } from './table.js';

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
  // What the caller's MCP client lists: its gateway adds the Finder's tool where the caller has documents.
  if ((await callerChannels(client, caller)).finder)
    tools.unshift(
      ...contextTools().map((t) => ({ name: t.name, server: 'mcpd', toolJson: Buffer.from(JSON.stringify(t)), definitionHash: '' })),
    );
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

export async function callCommand(
  client: ControlPlaneClient,
  caller: string,
  tool: string,
  argsJson: string,
  timeoutMs: number,
  out: Out,
): Promise<number> {
  try {
    JSON.parse(argsJson);
  } catch (e) {
    throw new McpdError('INVALID_ARGUMENT', `--args is not valid JSON: ${(e as Error).message}`);
  }
  let result: unknown;
  const stream = client.callTool({ caller, name: tool, argumentsJson: Buffer.from(argsJson), routingKey: '', timeoutMs });
  await collectStream(stream, (ev) => {
    if (ev.progress && !out.json)
      out.write(`progress ${ev.progress.progress}${ev.progress.hasTotal ? `/${ev.progress.total}` : ''} ${ev.progress.message}\n`);
    if (ev.resultJson) result = JSON.parse(ev.resultJson.toString('utf8'));
  });
  const r = result as { isError?: boolean; content?: { type: string; text?: string }[] };
  if (out.json) out.write(`${JSON.stringify(r, null, 2)}\n`);
  else for (const c of r.content ?? []) out.write(c.type === 'text' ? `${c.text}\n` : `[${c.type}]\n`);
  return r.isError ? 1 : 0;
}
