/** A fixture server (test/fixtures/servers/*.mjs) that listens on its own and prints one JSON line when ready. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface FixtureServerProc<T> {
  /** The JSON line it printed (its URL and the like). */
  info: T;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

export async function startFixtureServer<T>(file: string, env: NodeJS.ProcessEnv): Promise<FixtureServerProc<T>> {
  const child = spawn(process.execPath, [file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([l]) => l as string),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${file} exited (${String(code)}) before it was ready:\n${err}`);
    }),
  ]);
  return {
    info: JSON.parse(first) as T,
    child,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
