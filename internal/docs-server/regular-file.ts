import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, realpath, type FileHandle } from 'node:fs/promises';

/**
 * An opened document file, checked to be a regular file on the descriptor itself. A FIFO, socket or
 * device named `*.md` must never be read: reading a FIFO blocks until a writer comes (forever, in a
 * folder nobody writes to), and it would hold the server's start with it.
 */
export interface RegularFile {
  stat: Stats;
  /** Reads at most `stat.size` bytes (a file growing meanwhile is read as it was when opened). */
  read(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * Opens `real` (a path with every link already resolved) for reading. lstat first gives a clear
 * reason for a socket (which cannot be opened at all); O_NONBLOCK makes opening a FIFO return at
 * once instead of waiting for a writer; fstat on the descriptor then decides, so a file swapped
 * between the lstat and the open is still caught.
 */
export async function openRegularFile(real: string): Promise<RegularFile> {
  const before = await lstat(real);
  if (!before.isFile()) throw notRegular(before);
  const fh = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notRegular(st);
    // O_NOFOLLOW covers the last component only: a folder on the way swapped for a link (after the index
    // resolved `real` and checked it against the served folders) would lead elsewhere. What was opened
    // must be `real` itself.
    const opened = await openedPath(fh, real);
    if (opened !== real) throw new Error(`it resolved to ${opened} when opened, not ${real} (a folder on the way is a link): not read`);
    return { stat: st, read: () => readUpTo(fh, st.size), close: () => fh.close() };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** The real path of the opened file: the kernel's own record of it on Linux, else the path resolved again. */
async function openedPath(fh: FileHandle, real: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return realpath(real);
  }
}

async function readUpTo(fh: FileHandle, size: number): Promise<Uint8Array> {
  const buf = new Uint8Array(size);
  let at = 0;
  while (at < size) {
    const { bytesRead } = await fh.read(buf, at, size - at, at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return at === size ? buf : buf.subarray(0, at);
}

function notRegular(st: Stats): Error {
  return new Error(`it is ${kindOf(st)}, not a regular file: only regular files are read`);
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a file';
}
