import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import type * as pb from '../contract/gen/mcpd/control/v1/control.js';
import { ControlCalls } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';

/**
 * `mcpdctl restart SERVER [--instance ID]`: what each of the server's pools stopped and started (ids and
 * pids). Exits 0 when every pool runs a replacement — or had nothing running to restart — and 1 when a
 * replacement failed to start; an unknown server or instance is the core's NOT_FOUND (the driver says it).
 */
export async function restartCommand(client: ControlPlaneClient, server: string, instance: string | undefined, out: Out): Promise<number> {
  const r = await new ControlCalls(client).restartServer({ server, instance: instance ?? '', caller: '' });
  const failed = r.pools.some((p) => p.error !== '');
  if (out.json) {
    out.write(`${JSON.stringify(r.pools, null, 2)}\n`);
    return failed ? 1 : 0;
  }
  for (const p of r.pools) out.write(poolLines(p));
  return failed ? 1 : 0;
}

function poolLines(p: pb.RestartedPool): string {
  const head = `server ${p.references.join(', ')}  spec ${p.fingerprint.slice(0, 12)}`;
  if (p.stopped.length === 0) return `${head}: no instance running, nothing to restart (it starts on its next call)\n`;
  const lines = [`${head}: restarted`];
  for (const i of p.stopped) lines.push(`  stopped ${instanceText(i)}`);
  for (const i of p.started) lines.push(`  started ${instanceText(i)}`);
  if (p.error) lines.push(`  no replacement runs: ${p.error}`);
  else if (p.started.length === 0) lines.push('  the pool serves from its other instances; more start on demand');
  return `${lines.join('\n')}\n`;
}

function instanceText(i: pb.RestartedInstance): string {
  return `${i.id}${i.pid ? ` pid ${i.pid}` : ''} (${i.state})`;
}
