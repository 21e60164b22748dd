import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { execFile } from 'node:child_process';
import { MCPDCTL } from '../support/paths.js';

const PKG = '@modelcontextprotocol/server-everything';
const A = 'sha512-' + 'A'.repeat(86) + '==';
const B = 'sha512-' + 'B'.repeat(86) + '==';

interface Registry {
  url: string;
  publish(name: string, version: string, integrity: string): void;
  close(): Promise<void>;
}

describe('an npx package pinned to a version and its registry integrity', () => {
  let world: TestWorld;
  let registry: Registry;
  const entry = (spec: string) =>
    `servers:\n  - name: ev\n    cmd: [npx, -y, "${spec}"]\n    env: { npm_config_registry: "${registry.url}", MCPD_TEST_TAG: "\${MCPD_TEST_TAG}" }\n`;
  /** mcpdctl with the loopback registry, as a user with that registry in .npmrc would run it. */
  const ctl = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env = { ...world.env(), npm_config_registry: registry.url };
      execFile(process.execPath, [MCPDCTL, '--socket', world.socket, ...args], { env, timeout: 120_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });
  const record = () => JSON.parse(readFileSync(join(world.configDir, '.mcpd-state/packages/ev.json'), 'utf8')) as Record<string, string>;
  /** Lists (which starts the server) and returns the pool's newest error. */
  const startError = async (after: number): Promise<string> => {
    let error = '';
    await waitFor(
      'the start to fail',
      async () => {
        const gw = await world.gateway('one');
        await gw.listTools();
        const pool = (await world.calls().status()).pools.find((p) => p.references.some((r) => r.endsWith('/ev')));
        const last = pool?.errorHistory.at(-1);
        error = last && Number(last.atUnixMs) > after ? last.message : '';
        return error !== '';
      },
      120_000,
      500,
    );
    return error;
  };

  beforeAll(async () => {
    const { startNpmRegistry } = (await import(join(FIXTURES, 'registries/npm-registry.mjs'))) as {
      startNpmRegistry: () => Promise<Registry>;
    };
    registry = await startNpmRegistry();
    registry.publish(PKG, '1.0.0', A);
    world = new TestWorld({ 'profiles/default.yaml': entry(PKG) });
    await world.startCore({ npm_config_registry: registry.url });
  });
  afterAll(async () => {
    await world.cleanup();
    await registry.close();
  });

  it('resolves once, records version and integrity, and starts that version from then on', async () => {
    const first = await startError(0);
    expect(record()).toMatchObject({ name: PKG, requested: 'latest', version: '1.0.0', integrity: A });
    expect(first).toContain('server-everything-1.0.0.tgz');
    registry.publish(PKG, '1.1.0', B); // a new latest: not taken by itself
    world.write('profiles/default.yaml', entry(PKG) + '    idleSeconds: 301\n'); // a new pool, a new start
    const again = await startError(Date.now());
    expect(again).toContain('server-everything-1.0.0.tgz');
    expect(record().version).toBe('1.0.0');
  });

  it('refuses a different version until mcpdctl update shows and accepts it', async () => {
    world.write('profiles/default.yaml', entry(`${PKG}@^1.1.0`));
    const refused = await startError(Date.now());
    expect(refused).toMatch(
      /package @modelcontextprotocol\/server-everything changed since it was approved \(version 1\.0\.0 → 1\.1\.0\).*mcpdctl update ev/,
    );

    const dry = await ctl(['update', 'ev', '--dry-run']);
    expect(dry.stdout).toContain(`- ${PKG}@1.0.0 (${A})`);
    expect(dry.stdout).toContain(`+ ${PKG}@1.1.0 (${B})`);
    expect(record().version).toBe('1.0.0');
    const accepted = await ctl(['update', 'ev']);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(`accepted: new instances of ev start ${PKG}@1.1.0`);
    expect(record()).toMatchObject({ version: '1.1.0', integrity: B });
    world.write('profiles/default.yaml', entry(`${PKG}@^1.1.0`) + '    idleSeconds: 302\n');
    expect(await startError(Date.now())).toContain('server-everything-1.1.0.tgz');
  });
});
