import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

/**
 * A state file's text (the metadata cache, the task journal): opened without following a link and without
 * waiting (a FIFO planted there must not hang the core), read only when it is a regular file within the cap.
 */
export function readStateFile(file: string, maxBytes: number): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > maxBytes) throw new Error(`${st.size} bytes, over the ${maxBytes}-byte cap`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a state file whole or not at all: the user's own (0600, in a 0700 folder), through a temporary file
 * renamed over it; a failure (a full disk) leaves no partial file behind, and is thrown.
 */
export function writeStateFile(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** The ids of a state folder's `<id>.json` files that `id` accepts (others are not ours); none without the folder. */
export function stateFileIds(dir: string, id: RegExp): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.map((n) => (n.endsWith('.json') ? n.slice(0, -5) : '')).filter((i) => id.test(i));
}
