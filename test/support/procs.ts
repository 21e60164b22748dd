import { readdirSync, readFileSync } from 'node:fs';

/** Live pids whose environment carries `MCPD_TEST_TAG=<tag>` (inherited by every descendant). */
export function pidsWithTag(tag: string): number[] {
  const needle = `MCPD_TEST_TAG=${tag}`;
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'utf8');
      if (env.split('\0').includes(needle) && !isZombie(Number(name))) out.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Processes with the tag whose command line contains `marker`. */
export function countProcs(tag: string, marker: string): number {
  return pidsWithTag(tag).filter((p) => cmdline(p).includes(marker)).length;
}

/**
 * How long a wait may take unless the caller says otherwise: a bound on a condition, not a speed
 * assertion. Just under the 60 s test timeout, so a wait that never ends still fails with its own
 * message; 15 s was shorter than a core start or a stop on a loaded two-core machine, and failed tests
 * that were only slow (a core replacing a stale socket, `mcpdctl stop` reaching the core).
 */
export const WAIT_MS = 50_000;

/** Polls `check` until it returns true, or fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = WAIT_MS, everyMs = 50): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** SIGKILLs whatever still carries the tag (test clean-up) and reports what it had to kill. */
export function killTagged(tag: string): number[] {
  const left = pidsWithTag(tag).filter((p) => p !== process.pid);
  for (const p of left) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  return left;
}
