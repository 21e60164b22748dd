import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import { ControlCalls } from '../contract/grpc/control-client.js';
import type { Out } from './ctl-command.js';

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
