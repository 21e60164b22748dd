import { execFile } from 'node:child_process';
import { readlink } from 'node:fs/promises';
import type { Socket } from 'node:net';

/**
 * The connecting process's pid, for audit only (best effort, never for authorisation: the connection
 * itself is the identity). Node has no SO_PEERCRED, so: our end's inode from /proc/self/fd, then
 * `ss -xpn` (sock_diag) names the process holding the peer end. Undefined when anything is missing.
 */
export async function peerPid(socket: Socket): Promise<number | undefined> {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return undefined;
  try {
    const link = await readlink(`/proc/self/fd/${fd}`);
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (!inode) return undefined;
    const rows = await new Promise<string>((resolve, reject) =>
      execFile('ss', ['-xpnH'], { timeout: 2000, maxBuffer: 8 * 1024 * 1024 }, (err, out) => (err ? reject(err) : resolve(out))),
    );
    // Row of the client end: "... <local> <localInode> <peer> <peerInode> users:(("node",pid=N,fd=M))"
    for (const row of rows.split('\n')) {
      const cols = row.trim().split(/\s+/);
      // Netid State Recv-Q Send-Q Local LocalInode Peer PeerInode users…
      if (cols[7] !== inode) continue;
      const pid = /pid=(\d+)/.exec(row)?.[1];
      if (pid) return Number(pid);
    }
  } catch {
    // no /proc, no ss, or no permission: the pid stays unknown
  }
  return undefined;
}
