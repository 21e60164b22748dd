import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { MCPDCTL } from './paths.js';

/**
 * A fresh HOME for driving the real `mcpdctl import` / `connect` against real client config files: a store
 * with an empty default profile at HOME/store. Call `removeHomes()` in afterEach.
 */
const homes: string[] = [];

export function tempHome(): { home: string; store: string } {
  const home = mkdtempSync(join(tmpdir(), 'mcpd-home-'));
  homes.push(home);
  const store = join(home, 'store');
  mkdirSync(join(store, 'profiles'), { recursive: true });
  writeFileSync(join(store, 'profiles', 'default.yaml'), 'servers: []\n');
  return { home, store };
}

export function removeHomes(): void {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

/** Writes `text` at HOME/rel, making the directories. */
export function writeAt(home: string, rel: string, text: string): string {
  const p = join(home, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

/**
 * Runs the built mcpdctl with HOME = `home`, cwd = `home` (never the repository, whose own store would be
 * found there), and none of the variables that would point it elsewhere (`unset` names more).
 */
export async function ctl(
  home: string,
  args: string[],
  unset: string[] = [],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const k of ['XDG_CONFIG_HOME', 'MCPD_CONFIG', 'MCPD_SOCKET', 'CODEX_HOME', ...unset]) delete env[k];
  Object.assign(env, extra);
  return promisify(execFile)(process.execPath, [MCPDCTL, ...args], { env, cwd: home }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}
