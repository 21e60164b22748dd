import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { TestWorld } from '../support/core-process.js';
import { ctl as runCtl, packageRecord, startError as startErrorOf } from '../support/package-pins.js';
import { FIXTURES } from '../support/paths.js';

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
  const ctl = (args: string[]) => runCtl(world, args, { npm_config_registry: registry.url });
  const record = () => packageRecord(world, 'ev');
  const startError = (after: number) => startErrorOf(world, 'ev', after);

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
