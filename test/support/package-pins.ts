import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorld } from './core-process.js';
import { MCPDCTL } from './paths.js';
import { waitFor } from './procs.js';

/** The package pin mcpd recorded for `server` (`.mcpd-state/packages/<server>.json` in the store). */
export function packageRecord(world: TestWorld, server: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(world.configDir, `.mcpd-state/packages/${server}.json`), 'utf8')) as Record<string, unknown>;
}

/**
 * Lists as caller one (which starts every server) until `server`'s pool has an error newer than `after`
 * (epoch ms), and returns it: the package pins tests' servers fail to start on purpose, and the error
 * shows the command line mcpd wrote.
 */
export async function startError(world: TestWorld, server: string, after: number): Promise<string> {
  let error = '';
  await waitFor(
    `${server}'s start to fail`,
    async () => {
      const gw = await world.gateway('one');
      await gw.listTools();
      const pool = (await world.calls().status()).pools.find((p) => p.references.some((r) => r.endsWith(`/${server}`)));
      const last = pool?.errorHistory.at(-1);
      error = last && Number(last.atUnixMs) > after ? last.message : '';
      return error !== '';
    },
    120_000,
    500,
  );
  return error;
}

/** mcpdctl against `world`'s core, with `env` added to the world's environment (a package registry's URL). */
export function ctl(
  world: TestWorld,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MCPDCTL, '--socket', world.socket, ...args],
      { env: { ...world.env(), ...env }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
