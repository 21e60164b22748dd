/** The real mcpd-smcp binary as a child process: bound to a free loopback port, read from its first stdout line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { DIST } from './paths.js';
import { resolve } from 'node:path';

export const MCPD_SMCP = resolve(DIST, 'cmd/mcpd-smcp/main.js');

export interface SmcpProc {
  url: string;
  port: number;
  node: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM (or the given signal) and wait for the exit; returns the exit code/signal. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The node secret test nodes share on Redis unless a test gives its own (SMCP_NODE_SECRET). */
export const TEST_NODE_SECRET = 'test-node-secret-0123456789abcdefghij';

export async function startSmcpProc(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<SmcpProc> {
  const child = spawn(process.execPath, [MCPD_SMCP, '--listen', '127.0.0.1:0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SMCP_API_KEY: '', SMCP_NODE_SECRET: TEST_NODE_SECRET, ...env },
  });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([l]) => l as string),
    once(child, 'exit').then(([code]) => {
      throw new Error(`mcpd-smcp exited (${code}) before listening:\n${err}`);
    }),
  ]);
  const info = JSON.parse(first) as { url: string; port: number; node: string };
  return {
    ...info,
    child,
    stderr: () => err,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill(signal);
        await exited;
      }
      return { code: child.exitCode, signal: child.signalCode };
    },
  };
}

/** Runs mcpd-smcp expecting it to refuse to start; returns its exit code and stderr. */
export async function runSmcpExpectingExit(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MCPD_SMCP, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr: err };
}
