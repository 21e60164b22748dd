import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { TestWorld } from './core-process.js';
import { FIXTURES, MCPDCTL } from './paths.js';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `mcpdctl <args>` against the world's core, to its end. */
export function runCtl(world: TestWorld, args: string[]): Promise<Ran> {
  const child = spawn(process.execPath, [MCPDCTL, '--socket', world.socket, ...args], {
    env: world.env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return exitOf(child).then((code) => ({ code, stdout, stderr }));
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The next line the child prints on stdout (the rest of stdout keeps flowing). */
export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout?.setEncoding('utf8');
    const onData = (d: string) => {
      buf += d;
      const i = buf.indexOf('\n');
      if (i < 0) return;
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      resolve(buf.slice(0, i));
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing a line`)));
  });
}

/** A running OAuth-protected MCP server of test/fixtures/servers, with what it logged. */
export interface OAuthFixture {
  child: ChildProcess;
  mcp: string;
  issuer: string;
  log: string[];
  /** Sends a stdin command (oauth-router.mjs) and waits until the fixture says it holds. */
  command(line: string): Promise<void>;
}

export async function startOAuthFixture(world: TestWorld, file: string, env: Record<string, string> = {}): Promise<OAuthFixture> {
  const child = spawn(process.execPath, [join(FIXTURES, 'servers', file)], { env: world.env(env), stdio: ['pipe', 'pipe', 'pipe'] });
  const log: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (d: string) => log.push(d));
  const { mcp, issuer } = JSON.parse(await firstLine(child)) as { mcp: string; issuer: string };
  const command = async (line: string) => {
    const acked = firstLine(child);
    child.stdin?.write(`${line}\n`);
    expect(await acked).toBe(`ok ${line}`);
  };
  return { child, mcp, issuer, log, command };
}

/**
 * `mcpdctl auth <server>` with the browser step done by an HTTP client following redirects (the
 * fixture's authorization server approves at once); resolves with mcpdctl's stderr once it exited 0.
 */
export async function signInAs(world: TestWorld, server: string): Promise<string> {
  const auth = spawn(process.execPath, [MCPDCTL, '--socket', world.socket, 'auth', server, '--no-open', '--wait', '60'], {
    env: world.env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  auth.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = exitOf(auth);
  const page = await fetch(new URL(await firstLine(auth)), { redirect: 'follow' });
  expect(await page.text()).toContain('Signed in');
  expect(await exited).toBe(0);
  return stderr;
}

/** What the state directory holds for one signed-in server spec (tokens, client, notes). */
export interface StoredSignIn {
  file: string;
  server?: string;
  tokens?: { access_token: string; refresh_token?: string };
  clientInformation?: { client_id: string };
  tokensExpireAtUnixMs?: number;
}

/** The OAuth state file of the world's store that `mcpdctl auth <server>` wrote. */
export function storedSignIn(world: TestWorld, server: string): StoredSignIn {
  const dir = join(world.configDir, '.mcpd-state', 'oauth');
  const all = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ file: join(dir, f), ...(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Omit<StoredSignIn, 'file'>) }));
  const found = all.find((r) => r.server === server);
  if (!found) throw new Error(`no OAuth state for server ${server} in ${dir}`);
  return found;
}
