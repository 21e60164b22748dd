import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

interface UnixSocketRow {
  inode: number;
  listening: boolean;
  path: string;
}

/** Every unix socket of the machine (/proc/net/unix): accepted sockets carry their listener's path. */
function unixSockets(): UnixSocketRow[] {
  return readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((cols) => cols.length >= 7)
    .map((cols) => ({ inode: Number(cols[6]), listening: cols[3] === '00010000', path: cols[7] ?? '' }));
}

/** Connections the server listening on `path` has accepted and not yet closed. */
export function acceptedConnections(path: string): number {
  return unixSockets().filter((s) => s.path === path && !s.listening).length;
}

/** Unix sockets a process holds open (its stdio pipes from spawn included: libuv makes them socketpairs). */
export function unixSocketsOf(pid: number): number {
  const unix = new Set(unixSockets().map((s) => s.inode));
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed while we looked
    }
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m && unix.has(Number(m[1]))) n++;
  }
  return n;
}
