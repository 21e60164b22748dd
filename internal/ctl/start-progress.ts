import type { ControlPlaneClient } from '../contract/gen/mcpd/control/v1/control.js';
import { ControlCalls } from '../contract/grpc/control-client.js';

export interface ProgressTarget {
  write: (s: string) => void;
  /** Only a terminal gets a progress line (redirected output stays clean). */
  isTTY: boolean;
}

/** Below this nothing is shown: most answers come from the metadata cache at once. */
const QUIET_MS = 300;
const POLL_MS = 250;

/** "alpha 1.2 s, beta 0.8 s" for the instances still starting, named by the servers that use them. */
function startingLine(pools: { references: string[]; instances: { state: string; startedAtUnixMs: number }[] }[], now: number): string {
  const parts: string[] = [];
  for (const p of pools)
    for (const i of p.instances)
      if (i.state === 'starting') parts.push(`${p.references.join(',')} ${((now - i.startedAtUnixMs) / 1000).toFixed(1)} s`);
  return parts.join(', ');
}

/**
 * Runs `work`; if it takes a while, shows on the terminal which servers are starting and for how long
 * (the first listing of servers never seen before starts them, which can take seconds).
 */
export async function withStartProgress<T>(client: ControlPlaneClient, work: Promise<T>, out: ProgressTarget): Promise<T> {
  if (!out.isTTY) return work;
  const began = Date.now();
  let shown = false;
  let polling = false;
  const calls = new ControlCalls(client);
  const timer = setInterval(() => {
    if (polling || Date.now() - began < QUIET_MS) return;
    polling = true;
    calls
      .status()
      .then((st) => {
        const line = startingLine(st.pools, Date.now());
        if (line) {
          out.write(`\r\x1b[2Kstarting servers (${((Date.now() - began) / 1000).toFixed(1)} s): ${line}`);
          shown = true;
        }
      })
      // Ignored: progress display only: the start command reports the real outcome.
      .catch(() => {})
      .finally(() => (polling = false));
  }, POLL_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    if (shown) out.write(`\r\x1b[2Kservers started in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
  }
}
