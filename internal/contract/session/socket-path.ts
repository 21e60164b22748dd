import { chmodSync, existsSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { assertPrivateDir, UntrustedPathError } from '../../shared/file-trust.js';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { cappedTimeout } from '../../shared/timer-limit.js';

/**
 * `/run/user/<uid>/mcpd/control.sock` when the user's runtime directory exists, else
 * `/tmp/mcpd-<uid>/control.sock`. Derived from the user alone, never from XDG_RUNTIME_DIR or TMPDIR:
 * clients start gateways with environments of their own (Codex strips XDG_RUNTIME_DIR), and a gateway
 * that computed another path would start a second core on the same store.
 */
export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env, uid = userInfo().uid): string {
  if (env.MCPD_SOCKET) return env.MCPD_SOCKET;
  const runtimeDir = `/run/user/${uid}`;
  const base = ownDir(runtimeDir, uid) ? join(runtimeDir, 'mcpd') : join('/tmp', `mcpd-${uid}`);
  return join(base, 'control.sock');
}

function ownDir(dir: string, uid: number): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === uid;
  } catch {
    // No such directory (no systemd login session, macOS): the /tmp fallback is used.
    return false;
  }
}

export function grpcAddress(socketPath: string): string {
  return `unix://${socketPath}`;
}

/**
 * Resolves true when something accepts connections on the socket. `ifSlow` is the answer when neither
 * a connection nor an error came within `timeoutMs` (a loaded machine can starve this process that long).
 */
export function socketIsLive(path: string, timeoutMs = 500, ifSlow = false): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const done = (live: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(live);
    };
    const timer = cappedTimeout(() => done(ifSlow), timeoutMs);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Makes the socket's directory private (0700) and removes a stale socket left by a killed core.
 * Refuses when another core is listening, or when the path is something other than a socket.
 */
export async function prepareSocketPath(path: string): Promise<void> {
  prepareSocketDir(path);
  if (!existsSync(path)) return;
  if (!lstatSync(path).isSocket()) {
    throw new Error(`${path} exists and is not a socket; remove it or choose another --socket`);
  }
  // A dead core's socket refuses at once (ECONNREFUSED); no answer in time is a live core we were too
  // slow to hear, and unlinking its socket would hide it from every client (seen under load).
  if (await socketIsLive(path, 500, true)) throw new Error(alreadyServing(path));
  unlinkSync(path);
}

export function alreadyServing(path: string): string {
  return `another mcpd is already serving ${path}; stop it first (mcpdctl status shows its pid) or pass a different --socket`;
}

/** Creates the socket's directory private (0700), or checks that an existing one is private. */
export function prepareSocketDir(path: string): void {
  const dir = dirname(path);
  // Only a directory made here is set to 0700 (the umask may have widened it); an existing one is checked,
  // never changed: `--socket /tmp/x.sock` must not chmod /tmp.
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700);
  // Whoever can write the directory can swap our socket for theirs and see every call.
  assertPrivateDir(
    dir,
    'the control socket directory',
    `use a directory only you own and can write (mkdir -m 700 DIR), or unset the socket setting to use the default`,
  );
}

/**
 * Refuses to talk to a socket another user owns: a squatter's socket would see every call and secret.
 * A missing socket passes (connecting then fails with its own clear error).
 */
export function assertSocketOwner(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  if (uid === undefined || st.uid === uid) return;
  throw new UntrustedPathError(
    `the control socket ${path} is owned by uid ${st.uid}, not by this user (uid ${uid}); another user may be impersonating mcpd — do not use it: remove it if you can, or pass --socket with a path in a directory only you own`,
  );
}
