import { dirname } from 'node:path';

/** Codes a write fails with when the filesystem (or the user's quota, or the file size limit) has no room. */
const NO_ROOM: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large (the file size limit, `ulimit -f`, or the filesystem)',
};

/** True for an error that says the disk (or quota) is full. */
export function isNoRoom(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code in NO_ROOM;
}

/**
 * A write that failed for lack of room, said plainly: Node's own message for a failed write names
 * neither the file nor what to do ("ENOSPC: no space left on device, write"). Other errors pass through.
 */
export function noRoomError(e: unknown, file: string, what: string): Error {
  if (!isNoRoom(e)) return e instanceof Error ? e : new Error(String(e));
  const code = (e as NodeJS.ErrnoException).code as string;
  return new Error(
    `cannot write ${what} ${file}: ${NO_ROOM[code]} (${code}); free space on the filesystem of ${dirname(file)} (\`df -h ${dirname(file)}\`) and start again`,
  );
}
