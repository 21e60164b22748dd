import { chmodSync, existsSync, lstatSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { cappedTimeout } from '../../domain/timer-limit.js';

/** `$XDG_RUNTIME_DIR/mcpd/control.sock`, else a per-user directory under the temp dir. */
export function defaultSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCPD_SOCKET) return env.MCPD_SOCKET;
  const base = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'mcpd') : join(tmpdir(), `mcpd-${userInfo().uid}`);
  return join(base, 'control.sock');
}

export function grpcAddress(socketPath: string): string {
  return `unix://${socketPath}`;
}

/** Resolves true when something accepts connections on the socket. */
export function socketIsLive(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const done = (live: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(live);
    };
    const timer = cappedTimeout(() => done(false), timeoutMs);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Makes the socket's directory private (0700) and removes a stale socket left by a killed core.
 * Refuses when another core is listening, or when the path is something other than a socket.
 */
export async function prepareSocketPath(path: string): Promise<void> {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (statSync(dir).uid === process.getuid?.()) chmodSync(dir, 0o700);
  if (!existsSync(path)) return;
  if (!lstatSync(path).isSocket()) {
    throw new Error(`${path} exists and is not a socket; remove it or choose another --socket`);
  }
  if (await socketIsLive(path)) {
    throw new Error(`another mcpd is already serving ${path}; stop it first (mcpdctl status shows its pid) or pass a different --socket`);
  }
  unlinkSync(path);
}
