import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { alreadyServing, prepareSocketDir, prepareSocketPath, socketIsLive } from './socket-path.js';

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
 * kernel frees it when its process dies however it dies (a lock file outlives a SIGKILLed core). Other
 * platforms have no abstract sockets and get the unlocked check.
 */
export async function claimSocketPath(path: string): Promise<StartLock> {
  // The directory first (created private, or checked): the lock name uses its real path.
  prepareSocketDir(path);
  const lock = await takeLock(path);
  try {
    await prepareSocketPath(path);
  } catch (e) {
    await lock.release();
    throw e;
  }
  return lock;
}

async function takeLock(path: string): Promise<StartLock> {
  if (process.platform !== 'linux') return { release: () => Promise.resolve() };
  const server = createServer((c) => c.destroy());
  const bound = await new Promise<NodeJS.ErrnoException | undefined>((done) => {
    server.once('error', done);
    server.listen(lockName(path), () => done(undefined));
  });
  if (bound?.code === 'EADDRINUSE') throw new Error(await heldMessage(path));
  if (bound) throw bound;
  // The lock must not keep a stopped core's process alive.
  server.unref();
  return { release: () => new Promise((r) => server.close(() => r())) };
}

async function heldMessage(path: string): Promise<string> {
  if (await socketIsLive(path)) return alreadyServing(path);
  return `another mcpd is starting on ${path} (it holds the start lock ${JSON.stringify(lockName(path).slice(1))}, an abstract socket \`ss -xlp\` lists); wait for it, or pass a different --socket`;
}

/** `\0mcpd-start:<sha256 of the socket's real path>`: one name per socket, whatever path spelled it. */
function lockName(path: string): string {
  const real = join(realpathSync(dirname(resolve(path))), basename(path));
  return `\0mcpd-start:${createHash('sha256').update(real).digest('hex')}`;
}
