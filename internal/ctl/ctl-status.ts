import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import { ControlCalls } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';
import { ago, renderTable, truncate } from './table.js';
import { smcpStatusTable } from './ctl-smcp-status.js';
import { serverPinLines, withheldSection } from './ctl-pins-status.js';

export async function statusCommand(client: ControlPlaneClient, out: Out): Promise<void> {
  const calls = new ControlCalls(client);
  const [info, st] = await Promise.all([calls.getInfo(), calls.status()]);
  if (out.json) return out.write(`${JSON.stringify({ info, status: st }, null, 2)}\n`);
  out.write(`core ${info.version} pid ${info.pid} up ${ago(info.startedAtUnixMs)}, config ${info.configDir}, socket ${info.socket}\n`);
  if (st.configIssues.length)
    out.write(
      `configuration problems (an edit with errors is not applied; a server left out starts once its value is set):\n${st.configIssues.map((i) => `  ${i}`).join('\n')}\n`,
    );
  out.write('\nPOOLS\n');
  const rows = st.pools.map((p) => [
    p.fingerprint.slice(0, 12),
    p.references.join(','),
    p.strategy,
    p.protocolVersion || '-',
    `${p.instances.filter((i) => i.state !== 'stopped').length}/${p.maxInstances}`,
    p.instances
      .map((i) => `${i.state}${i.pid ? `:${i.pid}` : ''}(${i.startCause}${i.pinnedKeys ? `, ${i.pinnedKeys} pinned` : ''})`)
      .join(' ') || '-',
    p.suspended ? `SUSPENDED: ${p.suspendedReason}` : truncate(p.lastError || '', 60),
  ]);
  out.write(renderTable(['SPEC', 'USED BY', 'STRATEGY', 'MCP', 'INST', 'STATES', 'NOTE'], rows));
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
  if (st.policyQuotas.length) {
    out.write('\nQUOTAS (callers.yaml policies:)\n');
    out.write(
      renderTable(
        ['RULE', 'CALLER', 'TARGET', 'RATE', 'LEFT'],
        st.policyQuotas.map((q) => [q.rule, q.caller, q.target, q.rate, String(q.remaining)]),
      ),
    );
  }
  out.write(withheldSection(info.configDir));
}

/**
 * `mcpdctl status <server>`: every pool a server of that name uses (or whose fingerprint starts with
 * it), with its target, suspension, last error and recent error history — in full, never truncated.
 */
export async function serverStatusCommand(client: ControlPlaneClient, server: string, out: Out): Promise<number> {
  const calls = new ControlCalls(client);
  const [info, st] = await Promise.all([calls.getInfo(), calls.status()]);
  const pools = st.pools.filter((p) => p.fingerprint.startsWith(server) || p.references.some((r) => r.split('/')[1] === server));
  if (out.json) {
    out.write(`${JSON.stringify(pools, null, 2)}\n`);
    return pools.length ? 0 : 1;
  }
  if (pools.length === 0) {
    const known = [...new Set(st.pools.flatMap((p) => p.references.map((r) => r.split('/')[1])))].sort();
    out.warn(`mcpdctl status: no server named "${server}" in the running store; servers: ${known.join(', ') || 'none'}\n`);
    return 1;
  }
  for (const p of pools) {
    out.write(`server ${p.references.join(', ')}  spec ${p.fingerprint.slice(0, 12)}  ${p.transport} ${p.target}\n`);
    if (p.protocolVersion)
      out.write(`  speaks MCP ${p.protocolVersion}${p.protocolVersion >= '2026-07-28' ? ' (2026 era: stateless requests, MRTR)' : ''}\n`);
    if (p.asksClient) out.write('  asks its client (sampling, elicitation or roots): one call per instance\n');
    out.write(`  instances ${p.instances.filter((i) => i.state !== 'stopped').length}/${p.maxInstances}, restarts ${p.restarts}\n`);
    for (const i of p.instances) out.write(`    ${i.id} ${i.state}${i.pid ? ` pid ${i.pid}` : ''} (${i.startCause})\n`);
    if (p.suspended) out.write(`  SUSPENDED: ${p.suspendedReason}\n`);
    if (p.lastError) out.write(`  last error (${ago(Number(p.lastErrorAtUnixMs))}): ${p.lastError}\n`);
    if (p.errorHistory.length) {
      out.write('  error history (oldest first):\n');
      for (const e of p.errorHistory) out.write(`    ${new Date(Number(e.atUnixMs)).toISOString()}  ${e.message}\n`);
    }
  }
  for (const line of serverPinLines(info.configDir, server)) out.write(`${line}\n`);
  return 0;
}
