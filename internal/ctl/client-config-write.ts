import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, open, readFile, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { McpdError } from '../shared/errors.js';

/** A client's config file as read for an edit: the real path (a symlink is followed, never replaced). */
export interface ConfigText {
  /** The file written: the link's target when the config is a symbolic link. */
  path: string;
  /** undefined = the file does not exist yet. */
  text: string | undefined;
  /** Permission bits to keep (0600 for a new file). */
  mode: number;
}

/** Waits this long in all for another `mcpdctl connect` editing the same file; a lock older than STALE is left by a dead one. */
const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 30_000;
const LOCK_POLL_MS = 25;
/** Rounds of "re-read, re-apply" when the file changed under us (the client itself saving it). */
const CAS_ROUNDS = 5;

async function readConfigText(file: string): Promise<ConfigText> {
  let path = file;
  try {
    if ((await lstat(file)).isSymbolicLink()) path = await realpath(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(file, e);
  }
  try {
    const [text, st] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { path, text, mode: st.mode & 0o777 };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { path, text: undefined, mode: 0o600 };
    throw unreadable(path, e);
  }
}

function unreadable(path: string, e: unknown): McpdError {
  return new McpdError('UNAVAILABLE', `cannot read ${path}: ${(e as Error).message}`);
}

/**
 * Edits a client's config file safely: under a lock other `mcpdctl connect`s honour, re-reading the file
 * right before replacing it and starting over when it changed meanwhile (compare-and-swap against the
 * client saving it), replacing it in one rename with its mode kept, through a symbolic link rather than
 * over it. `edit` returns the new text, or undefined to leave the file alone; `backup` is written with
 * the previous text before the first change (one per file, replaced each time).
 */
export async function editConfigFile(
  file: string,
  edit: (current: ConfigText) => string | undefined,
): Promise<{ before: ConfigText; after: string | undefined; backup: string | undefined }> {
  const first = await readConfigText(file);
  const unlock = await lock(first.path);
  try {
    for (let round = 0; round < CAS_ROUNDS; round++) {
      const before = await readConfigText(file);
      const after = edit(before);
      if (after === undefined) return { before, after, backup: undefined };
      await mkdir(dirname(before.path), { recursive: true });
      const tmp = `${before.path}.mcpd-tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
      await writeFile(tmp, after, { mode: before.mode, flag: 'wx' });
      try {
        // The client may have saved the file since it was read: then start over from its new text.
        if ((await readConfigText(file)).text !== before.text) continue;
        const backup = before.text === undefined ? undefined : `${before.path}.mcpd-backup`;
        if (backup) await copyFile(before.path, backup);
        await rename(tmp, before.path);
        return { before, after, backup };
      } finally {
        // Gone after the rename; left after a lost race: either way not ours to keep.
        await unlink(tmp).catch(() => undefined);
      }
    }
    throw new McpdError('UNAVAILABLE', `${file} kept changing while it was being edited; nothing was changed — try again`);
  } finally {
    await unlock();
  }
}

/** `<file>.mcpd-lock`, created exclusively; a stale one (its writer died) is taken over. */
async function lock(path: string): Promise<() => Promise<void>> {
  const lockFile = `${path}.mcpd-lock`;
  await mkdir(dirname(path), { recursive: true });
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = await open(lockFile, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      await fd.writeFile(`${process.pid}\n`);
      await fd.close();
      // Already removed (taken over as stale after a very long edit): nothing left to release.
      return () => unlink(lockFile).catch(() => undefined);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const age = await stat(lockFile).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    // Left by an mcpdctl that died mid-edit: remove it (another may have already) and try again.
    if (age > LOCK_STALE_MS) await unlink(lockFile).catch(() => undefined);
    else if (Date.now() > until)
      throw new McpdError(
        'UNAVAILABLE',
        `${path} is being edited by another mcpdctl (${lockFile}); try again, or remove that file if none runs`,
      );
    else await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}
