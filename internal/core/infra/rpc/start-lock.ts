import { createHash, randomBytes } from 'node:crypto';
import { linkSync, lstatSync, readFileSync, realpathSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { noRoomError } from '../../../shared/disk-full.js';
import { alreadyServing, prepareSocketDir, prepareSocketPath, socketIsLive } from '../../../contract/session/socket-path.js';

/** Held by the one core that serves a socket, from before it touches the socket path until it has removed it. */
export interface StartLock {
  release(): Promise<void>;
}

/**
 * Takes the socket's start lock, then clears a stale socket. Checking "is anyone listening?" and then
 * unlinking a stale socket is not atomic: two cores started at once over a killed core's socket could
 * each remove the other's fresh socket and both run, one unreachable (several autostarting gateways do
 * exactly this). Under the lock only one core checks, unlinks and binds.
 *
 * The lock is a Linux abstract unix socket named after the socket path: binding it is atomic, and the
 * kernel frees it when its process dies however it dies (a lock file outlives a SIGKILLed core). Abstract
 * names have no permissions, so the name also hashes a secret only this user can read (`<socket>.start-key`,
 * 0600): another local user cannot compute it and squat it to keep our core from starting. Other
 * platforms have no abstract sockets and get the unlocked check.
 */
export async function claimSocketPath(path: string): Promise<StartLock> {
  // The directory first (created private, or checked): the lock name uses its real path.
  prepareSocketDir(path);
  const lock = await takeLock(path, () => heldMessage(path));
  try {
    await prepareSocketPath(path);
  } catch (e) {
    await lock.release();
    throw e;
  }
  return lock;
}

/**
 * One core per store, whatever socket each was given (two cores on one store run every server twice and
 * race for the metrics port): the same kind of lock, named after the store's state directory. `held`
 * says who holds it.
 */
export function claimStore(stateDir: string, held: () => Promise<string>): Promise<StartLock> {
  return takeLock(join(stateDir, 'core'), held);
}

async function takeLock(path: string, held: () => Promise<string>): Promise<StartLock> {
  if (process.platform !== 'linux') return { release: () => Promise.resolve() };
  const server = createServer((c) => c.destroy());
  const bound = await new Promise<NodeJS.ErrnoException | undefined>((done) => {
    server.once('error', done);
    server.listen(lockName(path), () => done(undefined));
  });
  if (bound?.code === 'EADDRINUSE') throw new Error(await held());
  if (bound) throw bound;
  // The lock must not keep a stopped core's process alive.
  server.unref();
  return { release: () => new Promise((r) => server.close(() => r())) };
}

async function heldMessage(path: string): Promise<string> {
  if (await socketIsLive(path)) return alreadyServing(path);
  return `another mcpd is starting on ${path} (it holds the start lock ${JSON.stringify(lockName(path).slice(1))}, an abstract socket \`ss -xlp\` lists); wait for it, or pass a different --socket`;
}

/** `\0mcpd-start:<sha256 of the socket's real path and its start key>`: one name per socket, whatever path spelled it. */
function lockName(path: string): string {
  const real = join(realpathSync(dirname(resolve(path))), basename(path));
  return `\0mcpd-start:${createHash('sha256').update(real).update('\0').update(startKey(real)).digest('hex')}`;
}

/**
 * The socket's start key: created once, atomically (link of a private temp file, so a racing core reads
 * the winner's whole key), and trusted only when this user owns it and nobody else can read it — the socket
 * may live in a shared directory such as /tmp, where another user could plant the file first.
 */
function startKey(socketPath: string): string {
  const file = `${socketPath}.start-key`;
  if (!lstatOrUndefined(file)) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      writeFileSync(tmp, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
      linkSync(tmp, file);
    } catch (e) {
      // Another core created it first: use theirs (checked below like any existing key).
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw noRoomError(e, file, 'the start key');
    } finally {
      // The temp file exists whenever its creation got as far as the open (a full disk fails the write after it).
      removeIfThere(tmp);
    }
  }
  const st = lstatOrUndefined(file);
  const uid = process.getuid?.();
  if (!st?.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0)
    throw new Error(
      `${file} is not a private file of this user (it must be a regular file owned by you with mode 0600); remove it, or pass a --socket in a directory only you own`,
    );
  return readFileSync(file, 'utf8');
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
