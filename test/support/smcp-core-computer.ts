import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary, type createControlClient } from '../../internal/contract/grpc/control-client.js';
import { waitFor } from './procs.js';

type Control = ReturnType<typeof createControlClient>;

/** The core's SMCP Computers as its runtime status reports them. */
export async function smcpComputers(control: Control): Promise<pb.RuntimeStatus['smcpComputers']> {
  const st = await callUnary<pb.GetRuntimeStatusRequest, pb.RuntimeStatus>((q, cb) => control.getRuntimeStatus(q, cb), {});
  return st.smcpComputers;
}

/** Waits until the core's Computer `name` has joined its office at least `joins` times and is joined now. */
export function computerJoined(control: Control, name: string, joins = 1): Promise<void> {
  return waitFor(`computer ${name} joined (${joins})`, async () => {
    const c = (await smcpComputers(control)).find((x) => x.name === name);
    return c?.state === 'joined' && c.joins >= joins;
  });
}
