import { constants, fstatSync, lstatSync, openSync, closeSync, type Stats } from 'node:fs';

/** Thrown when a path another local user could control is refused; the message names the path and the fix. */
export class UntrustedPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UntrustedPathError';
  }
}

const myUid = (): number | undefined => process.getuid?.();

/** Why `st` may be changed by another user, or undefined when only we (and root) can. */
export function foreignControl(st: Stats, opts: { allowRootOwner?: boolean } = {}): string | undefined {
  const uid = myUid();
  if (uid === undefined) return undefined;
  if (st.uid !== uid && !(opts.allowRootOwner && st.uid === 0)) return `it is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  if ((st.mode & 0o002) !== 0) return `it is writable by every user (mode ${modeText(st.mode)})`;
  // Group write is fine for the user's own primary group: with the usual umask 002 and a group per user
  // (Debian/Ubuntu), every file is group-writable and that group holds only the user.
  if ((st.mode & 0o020) !== 0 && st.gid !== process.getgid?.()) {
    return `it is writable by its group (gid ${st.gid}, mode ${modeText(st.mode)})`;
  }
  return undefined;
}

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/**
 * Refuses a directory that another user owns or can write: whoever can write it can swap what we
 * put there (a socket, a log, a profile) for their own.
 */
export function assertPrivateDir(dir: string, what: string, fix: string): void {
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) throw new UntrustedPathError(`${what} ${dir} is a symbolic link; ${fix}`);
  const why = foreignControl(st);
  if (why) throw new UntrustedPathError(`${what} ${dir} is not private: ${why}; ${fix}`);
}

/**
 * Opens a log file for appending without following a symbolic link planted in its place, and checks
 * that what was opened is a regular file of ours. Returns the descriptor.
 */
export function openOwnAppendFile(path: string, mode = 0o600): number {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new UntrustedPathError(`${path} is a symbolic link; remove it (mcpd never writes through a link)`);
    }
    throw e;
  }
  const st = fstatSync(fd);
  const why = !st.isFile() ? 'it is not a regular file' : foreignControl(st);
  if (why) {
    closeSync(fd);
    throw new UntrustedPathError(`${path} cannot be used as a log: ${why}; remove it`);
  }
  return fd;
}
