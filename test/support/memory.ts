import { readFileSync } from 'node:fs';

/** Resident set size of a live process in MiB (from /proc), the number "memory stays bounded" checks. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** The highest resident set size a live process has had so far in MiB (VmHWM): catches a peak no poll would see. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  if (!m) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(m[1]) / 1024;
}
