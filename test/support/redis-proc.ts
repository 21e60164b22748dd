/** A real redis-server for one test file: a free loopback port, no persistence, stopped and checked gone. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './free-port.js';

export interface RedisProc {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (b: Buffer): void => {
      out += b.toString();
      if (out.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before ready:\n${out}`)));
  });
}

/**
 * Starts redis-server; the port comes from a just-closed listener, so a lost race is retried. `port`
 * restarts one on a port a stopped one used (a Redis restarted empty).
 */
export async function startRedis(env: NodeJS.ProcessEnv = process.env, fixedPort?: number): Promise<RedisProc> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = fixedPort ?? (await freePort());
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
      { stdio: ['ignore', 'pipe', 'pipe'], env },
    );
    try {
      await ready(child);
    } catch (e) {
      lastError = e;
      continue;
    }
    child.stdout?.resume();
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      },
    };
  }
  throw lastError;
}
