/** Signals and liveness checks for whole process groups (a stdio server and everything it spawned). */
import { readdirSync, readFileSync } from 'node:fs';
import { cappedDelay } from '../../../shared/timer-limit.js';

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Without /proc: true while anything (zombies too) is in the group. */
function groupSignalable(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

/** One /proc/<pid>/stat entry; undefined when the process is gone. */
export function readProc(pid: number): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: fields restart after the last ')'.
  const [state = '', ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid) };
}

/** Processes of a group that are still running (zombies excluded: they are dead, awaiting a reap by init). */
export function liveGroupMembers(pgid: number): ProcInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return groupSignalable(pgid) ? [{ pid: pgid, ppid: 0, pgid, state: '?' }] : [];
  }
  const out: ProcInfo[] = [];
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const info = readProc(Number(name));
    if (info && info.pgid === pgid && info.state !== 'Z' && info.state !== 'X') out.push(info);
  }
  return out;
}

function groupAlive(pgid: number): boolean {
  return liveGroupMembers(pgid).length > 0;
}

/** Polls until no live process is left in the group or `timeoutMs` passes; true when it emptied. */
export async function waitGroupGone(pgid: number, timeoutMs: number, intervalMs = 50): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= until) return false;
    await cappedDelay(intervalMs);
  }
  return true;
}
