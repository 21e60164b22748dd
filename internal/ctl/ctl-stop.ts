import { readFileSync } from 'node:fs';
import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import { ControlCalls } from '../contract/grpc/control-client.js';

/** What ctl-commands' `Out` is (not imported: ctl-commands re-exports this file). */
interface Out {
  json: boolean;
  write: (s: string) => void;
}

/** Beyond the grace period: servers get their own SIGTERM→SIGKILL time and the control plane closes. */
const STOP_SLACK_MS = 15_000;
const POLL_MS = 100;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: the pid was reused by another user's process, so our core is gone too.
    return false;
  }
}

async function exited(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/**
 * SIGTERM to each gateway the core named, when that pid is still an mcpdmcp of this user (a pid may
 * have been reused since). Returns the pids signalled.
 */
function stopGateways(pids: number[]): number[] {
  return pids.filter((pid) => {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      // Gone already, or no /proc here: nothing to stop.
      return false;
    }
    if (!/mcpdmcp/.test(cmdline)) return false;
    try {
      process.kill(pid, 'SIGTERM');
      return true;
    } catch {
      // Exited between the check and the signal, or not ours (EPERM): nothing to stop.
      return false;
    }
  });
}

/**
 * `mcpdctl stop`: the graceful stop SIGTERM gives, asked over the control plane, then waits until the
 * core process has exited so that "stopped" means stopped.
 */
export async function stopCommand(client: ControlPlaneClient, out: Out, o: { all?: boolean } = {}): Promise<number> {
  const r = await new ControlCalls(client).stop();
  const gateways = o.all ? stopGateways(r.gatewayPids) : [];
  if (!out.json) {
    out.write(
      r.started
        ? `stopping core pid ${r.pid}: new calls are refused; ${r.inFlightCalls} call(s) in flight get up to ${r.graceSeconds} s\n`
        : `core pid ${r.pid} was already stopping\n`,
    );
  }
  const done = await exited(r.pid, r.graceSeconds * 1000 + STOP_SLACK_MS);
  if (out.json) out.write(`${JSON.stringify({ ...r, exited: done, gatewaysStopped: gateways }, null, 2)}\n`);
  else {
    if (gateways.length) out.write(`stopped gateway pid${gateways.length > 1 ? 's' : ''} ${gateways.join(', ')}\n`);
    out.write(done ? `core pid ${r.pid} stopped\n` : `core pid ${r.pid} is still running; see its log\n`);
  }
  return done ? 0 : 1;
}
