import type { ControlPlaneClient } from '../../gen/mcpd/control/v1/control.js';
import type * as pb from '../../gen/mcpd/control/v1/control.js';
import { McpdError } from '../../domain/errors.js';
import { collectStream, ControlCalls } from '../rpc/control-client.js';
import type { Out } from './ctl-command.js';
import { ago, renderTable, truncate } from './table.js';

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
      ['CALLER', 'PROFILE', 'SESSIONS'],
      st.callers.map((c) => [c.caller, c.profile, String(c.sessions)]),
    ),
  );
}
