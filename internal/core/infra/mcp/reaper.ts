import { spawn, type ChildProcess } from 'node:child_process';
import { REAPER_SCRIPT } from './reaper-script.js';
import { cappedDelay } from '../../../shared/timer-limit.js';

/**
 * Core side of the reaper sidecar: one per launcher. Registered process groups are killed by the
 * sidecar when the core dies without stopping them. The sidecar is unref'd so it never keeps the
 * core alive, and respawned (with every live group re-registered) if it dies before the core.
 */
export class Reaper {
  private child?: ChildProcess;
  private readonly groups = new Set<number>();
  private ended = false;

  constructor(private readonly onEvent: (message: string) => void = () => {}) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  register(pgid: number): void {
    this.groups.add(pgid);
    if (!this.ensure()) this.write(`+${pgid}\n`);
  }

  unregister(pgid: number): void {
    if (this.groups.delete(pgid)) this.write(`-${pgid}\n`);
  }

  /** Ends the sidecar; groups still registered are killed by it (with its grace period). */
  async end(timeoutMs = 5000): Promise<void> {
    this.ended = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    const timer = cappedDelay(timeoutMs, { unref: true });
    await Promise.race([exited, timer]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** Starts the sidecar if needed; true when it was (re)started with every group already sent. */
  private ensure(): boolean {
    if (this.ended) throw new Error('the launcher was shut down: no new servers can be started');
    if (this.child) return false;
    const child = spawn(process.execPath, ['-e', REAPER_SCRIPT], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      cwd: '/',
      env: { PATH: process.env.PATH ?? '' },
    });
    this.child = child;
    child.on('error', (err) => this.onEvent(`reaper sidecar error: ${err.message}`));
    child.stdin?.on('error', () => {}); // EPIPE when the sidecar died; 'exit' handles it
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (this.ended) return;
      this.onEvent(`reaper sidecar exited (${signal ?? code}); restarting it`);
      if (this.groups.size > 0) this.ensure();
    });
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.write([...this.groups].map((g) => `+${g}\n`).join(''));
    return true;
  }

  private write(text: string): void {
    if (!text || !this.child?.stdin?.writable) return;
    this.child.stdin.write(text);
  }
}
