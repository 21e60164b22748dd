import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { TestWorld } from '../support/core-process.js';
import { ctl as runCtl, packageRecord, startError as startErrorOf } from '../support/package-pins.js';
import { FIXTURES } from '../support/paths.js';

const PKG = '@modelcontextprotocol/server-everything';
const A = 'sha512-' + 'A'.repeat(86) + '==';
const B = 'sha512-' + 'B'.repeat(86) + '==';
const C = 'sha512-' + 'C'.repeat(86) + '==';

interface Registry {
  url: string;
  publish(name: string, version: string, integrity: string): void;
  close(): Promise<void>;
}

describe('an npx package pinned to a version and its registry integrity', () => {
  let world: TestWorld;
  let registry: Registry;
  const entry = (spec: string, url = registry.url, env = '') =>
    `servers:\n  - name: ev\n    cmd: [npx, -y, "${spec}"]\n    env: { npm_config_registry: "${url}", ${env}MCPD_TEST_TAG: "\${MCPD_TEST_TAG}" }\n`;
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

  it('refuses the approved version republished with another integrity until mcpdctl update accepts it', async () => {
    registry.publish(PKG, '1.1.0', C); // the same version, another tarball
    world.write('profiles/default.yaml', entry(`${PKG}@^1.1.0`) + '    idleSeconds: 303\n'); // a new pool: checked again
    const refused = await startError(Date.now());
    expect(refused).toContain(
      `cannot start server ev: its package ${PKG} changed since it was approved (integrity of 1.1.0 ${B} → ${C}); see and accept the change with "mcpdctl update ev"`,
    );
    expect(record()).toMatchObject({ version: '1.1.0', integrity: B });

    const dry = await ctl(['update', 'ev', '--dry-run']);
    expect(dry.stdout).toContain(`- ${PKG}@1.1.0 (${B})`);
    expect(dry.stdout).toContain(`+ ${PKG}@1.1.0 (${C})`);
    expect((await ctl(['update', 'ev'])).code).toBe(0);
    expect(record()).toMatchObject({ version: '1.1.0', integrity: C });
    // The same pool's next start is checked again, and now starts the accepted pin.
    expect(await startError(Date.now())).toContain('server-everything-1.1.0.tgz');
  }, 180_000);

  it('starts the recorded pin, and logs that it is unchecked, when its registry does not answer', async () => {
    const dead = await closedPort();
    // No retries: npx meets the dead registry too, and its default retries would outlast a listing.
    world.write('profiles/default.yaml', entry(`${PKG}@^1.1.0`, `http://127.0.0.1:${dead}/`, 'npm_config_fetch_retries: "0", '));
    // npx is started, and then meets the same dead registry: the start fails there, not on a refusal of mcpd's.
    const error = await startError(Date.now());
    expect(error).not.toContain('changed since it was approved');
    expect(error).toMatch(/failed to start: it exited \(code 1\).*If you are behind a proxy/s);
    const line = await world.waitForLogLine('the unchecked start logged', /server ev: could not check /);
    expect(line).toContain(`could not check ${PKG}@1.1.0 against its registry`);
    expect(line).toContain(`starting the recorded pin (${C}) unchecked`);
    expect(record()).toMatchObject({ version: '1.1.0', integrity: C });
  }, 180_000);
});

/** A loopback port nothing listens on (one that was just free). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}
