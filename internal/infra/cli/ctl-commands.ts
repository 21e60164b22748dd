import type { ControlPlaneClient } from '../../gen/mcpd/control/v1/control.js';
import type * as pb from '../../gen/mcpd/control/v1/control.js';
import { McpdError } from '../../domain/errors.js';
import { estimateTokens } from '../../domain/tool-tokens.js';
import { collectStream, ControlCalls } from '../rpc/control-client.js';
import { ago, renderTable, truncate } from './table.js';
import { smcpStatusTable } from './ctl-smcp-status.js';

export interface Out {
  json: boolean;
  write: (s: string) => void;
}

export async function statusCommand(client: ControlPlaneClient, out: Out): Promise<void> {
  const calls = new ControlCalls(client);
  const [info, st] = await Promise.all([calls.getInfo(), calls.status()]);
  if (out.json) return out.write(`${JSON.stringify({ info, status: st }, null, 2)}\n`);
  out.write(`core ${info.version} pid ${info.pid} up ${ago(info.startedAtUnixMs)}, config ${info.configDir}, socket ${info.socket}\n`);
  if (st.configIssues.length)
    out.write(`configuration problems (running config kept):\n${st.configIssues.map((i) => `  ${i}`).join('\n')}\n`);
  out.write('\nPOOLS\n');
  const rows = st.pools.map((p) => [
    p.fingerprint.slice(0, 12),
    p.references.join(','),
    p.strategy,
    `${p.instances.filter((i) => i.state !== 'stopped').length}/${p.maxInstances}`,
    p.instances
      .map((i) => `${i.state}${i.pid ? `:${i.pid}` : ''}(${i.startCause}${i.pinnedKeys ? `, ${i.pinnedKeys} pinned` : ''})`)
      .join(' ') || '-',
    p.suspended ? `SUSPENDED: ${p.suspendedReason}` : truncate(p.lastError || '', 60),
  ]);
  out.write(renderTable(['SPEC', 'USED BY', 'STRATEGY', 'INST', 'STATES', 'NOTE'], rows));
  out.write('\nCALLERS\n');
  out.write(
    renderTable(
      ['CALLER', 'PROFILE', 'SESSIONS', 'TOOLS', '~TOKENS', 'SEARCH CATALOG'],
      st.callers.map((c) => [
        c.caller,
        c.profile,
        String(c.sessions),
        String(c.toolCount),
        String(c.toolTokens),
        c.catalogCount ? `${c.catalogCount} tools, ~${c.catalogTokens} tokens` : '-',
      ]),
    ),
  );
  if (st.smcpComputers.length) out.write(smcpStatusTable(st.smcpComputers));
}

export async function toolsCommand(client: ControlPlaneClient, caller: string, out: Out): Promise<void> {
  const tools: pb.ToolDefinition[] = [];
  let cursor = '';
  let etag = '';
  let collisions: pb.Collision[] = [];
  do {
    const page = await new ControlCalls(client).listTools({ caller, cursor, pageSize: 0 });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    etag = page.etag;
    collisions = page.collisions;
  } while (cursor);
  if (out.json) {
    const parsed = tools.map((t) => ({
      name: t.name,
      server: t.server,
      definitionHash: t.definitionHash,
      tool: JSON.parse(t.toolJson.toString('utf8')),
    }));
    const estimatedTokens = tools.reduce((n, t) => n + estimateTokens(t.toolJson.toString('utf8')), 0);
    return out.write(`${JSON.stringify({ etag, count: tools.length, estimatedTokens, tools: parsed, collisions }, null, 2)}\n`);
  }
  let tokens = 0;
  const rows = tools.map((t) => {
    const text = t.toolJson.toString('utf8');
    tokens += estimateTokens(text);
    const def = JSON.parse(text) as { description?: string };
    return [t.name, t.server, truncate((def.description ?? '').split('\n')[0], 70)];
  });
  out.write(renderTable(['TOOL', 'SERVER', 'DESCRIPTION'], rows));
  out.write(`${tools.length} tools, ~${tokens} tokens (estimated, 4 characters of JSON per token), etag ${etag}\n`);
  for (const c of collisions) out.write(`collision: ${c.name} (${c.servers.join(', ')}): ${c.resolution}\n`);
  if (tools.some((t) => t.name === 'mcpd_search_tools' && t.server === ''))
    out.write(
      'tool search mode: every other tool of the profile is found by mcpd_search_tools ("mcpdctl status" shows the catalog size)\n',
    );
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

export async function reloadCommand(client: ControlPlaneClient, out: Out): Promise<number> {
  const r = await new ControlCalls(client).reload();
  if (out.json) out.write(`${JSON.stringify(r, null, 2)}\n`);
  else if (r.applied)
    out.write(
      `applied: ${r.poolsAdded} pools added, ${r.poolsRemoved} removed, profiles changed: ${r.profilesChanged.join(', ') || 'none'}\n`,
    );
  else out.write(`rejected; the running configuration stays:\n${r.issues.map((i) => `  ${i}`).join('\n')}\n`);
  return r.applied ? 0 : 1;
}

export { stopCommand } from './ctl-stop.js';
export { importCommand } from './import-command.js';
export { connectCommand } from './connect-command.js';
export { completionCommand } from './completion-command.js';
