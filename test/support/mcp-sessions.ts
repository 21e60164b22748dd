/** Helpers for tests that start real servers (not used at run time). */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SPEC_DEFAULTS, type ServerSpec } from '../../internal/contract/model/spec.js';
import { readProc } from '../../internal/core/infra/mcp/process-group.js';

export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above test-support.ts');
    dir = up;
  }
  return dir;
}

export const fixturePath = (file: string): string => join(repoRoot(), 'test/fixtures/servers', file);
export const everythingPath = (): string => join(repoRoot(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export function stdioSpec(name: string, argv: string[], over: Partial<ServerSpec> = {}): ServerSpec {
  return {
    ...SPEC_DEFAULTS,
    name,
    transport: 'stdio',
    cmd: argv,
    env: {},
    headers: {},
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
    drainTimeoutSeconds: 2,
    callTimeoutSeconds: 10,
    ...over,
  };
}

export function fixtureSpec(name: string, file: string, over: Partial<ServerSpec> = {}): ServerSpec {
  return stdioSpec(name, [process.execPath, fixturePath(file)], over);
}

/** A process is gone when it has no /proc entry or is a zombie left for init to reap. */
export function processGone(pid: number): boolean {
  const p = readProc(pid);
  return p === undefined || p.state === 'Z' || p.state === 'X';
}

/** Polls `cond` until true; throws with `what` after `timeoutMs`. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000, intervalMs = 25): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Live (non-zombie) descendants of `root`, found by walking parent links in /proc. */
export function liveDescendants(root: number = process.pid): number[] {
  const procs = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => readProc(Number(n)))
    .filter((p): p is NonNullable<typeof p> => p !== undefined && p.state !== 'Z' && p.state !== 'X');
  const out: number[] = [];
  const frontier = [root];
  while (frontier.length) {
    const parent = frontier.pop() as number;
    for (const p of procs) {
      if (p.ppid === parent) {
        out.push(p.pid);
        frontier.push(p.pid);
      }
    }
  }
  return out;
}
