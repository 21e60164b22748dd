import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { TestWorld } from '../support/core-process.js';
import { ctl as runCtl, packageRecord, startError as startErrorOf } from '../support/package-pins.js';
import { FIXTURES } from '../support/paths.js';

// uv and pipx are not installed on the test machines: the servers' commands name stand-ins
// (test/fixtures/python-runners) that say how they were started and fail, so the start error shows
// the command line mcpd wrote. Resolution and the records are real, against a loopback index.
const RUNNERS = join(FIXTURES, 'python-runners');
const wheel = (v: string, d: string) => ({ filename: `mcp_server_time-${v}-py3-none-any.whl`, sha256: d.repeat(64) });
const sdist = (v: string, d: string) => ({ filename: `mcp_server_time-${v}.tar.gz`, sha256: d.repeat(64) });

interface Index {
  indexUrl: string;
  publish(name: string, version: string, files: { filename: string; sha256: string }[]): void;
  close(): Promise<void>;
}

describe('uvx and pipx packages pinned to a version and their files sha256 digests', () => {
  let world: TestWorld;
  let index: Index;
  const profile = (uvx: string, tuExtra = '', pipx = 'mcp-server-time') =>
    'servers:\n' +
    `  - name: tu\n    cmd: ["${RUNNERS}/uvx", "--python", "3.12", ${uvx}, "--local-timezone", "UTC"]\n` +
    `    env: { UV_DEFAULT_INDEX: "${index.indexUrl}" }\n${tuExtra}` +
    `  - name: tp\n    cmd: ["${RUNNERS}/pipx", "run", "${pipx}"]\n` +
    `    env: { PIP_INDEX_URL: "${index.indexUrl}" }\n`;
  const ctl = (args: string[]) => runCtl(world, args);
  const record = (server: string) => packageRecord(world, server);
  /** Lists (which starts both servers) and returns the named pool's newest error after `after`. */
  const startError = (server: string, after: number) => startErrorOf(world, server, after);

  beforeAll(async () => {
    const { startPypiIndex } = (await import(join(FIXTURES, 'registries/pypi-index.mjs'))) as { startPypiIndex: () => Promise<Index> };
    index = await startPypiIndex();
    index.publish('mcp-server-time', '0.6.1', [wheel('0.6.1', 'a'), sdist('0.6.1', 'b')]);
    index.publish('mcp-server-time', '0.6.2', [wheel('0.6.2', 'c'), sdist('0.6.2', 'd')]);
    world = new TestWorld({ 'profiles/default.yaml': profile('"mcp-server-time"') });
    await world.startCore();
  });
  afterAll(async () => {
    await world.cleanup();
    await index.close();
  });

  it('resolves once, records version and digests, and starts exactly that version from then on', async () => {
    expect(await startError('tu', 0)).toContain('uvx started as: ["--python","3.12","mcp-server-time@0.6.2","--local-timezone","UTC"]');
    expect(await startError('tp', 0)).toContain('pipx started as: ["run","--spec","mcp-server-time==0.6.2","mcp-server-time"]');
    const tu = record('tu');
    expect(tu).toMatchObject({ registry: 'pypi', name: 'mcp-server-time', requested: 'latest', version: '0.6.2' });
    expect(tu.files).toEqual({ 'mcp_server_time-0.6.2-py3-none-any.whl': 'c'.repeat(64), 'mcp_server_time-0.6.2.tar.gz': 'd'.repeat(64) });
    expect(tu.integrity).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);

    index.publish('mcp-server-time', '0.7.0', [wheel('0.7.0', 'e')]); // a new latest: not taken by itself
    world.write('profiles/default.yaml', profile('"mcp-server-time"') + '    idleSeconds: 301\n');
    expect(await startError('tp', Date.now())).toContain('"--spec","mcp-server-time==0.6.2"');
    expect(record('tp').version).toBe('0.6.2');
  });

  it('takes the highest release a range allows, keeps extras, and writes the --from form', async () => {
    world.write('profiles/default.yaml', profile('"--from", "mcp-server-time[cli]>=0.6,<0.7", "mcp-server-time"'));
    // 0.7.0 is the latest but outside the range; 0.6.2 is what was approved, so it starts.
    expect(await startError('tu', Date.now())).toContain(
      'uvx started as: ["--python","3.12","--from","mcp-server-time[cli]==0.6.2","mcp-server-time","--local-timezone","UTC"]',
    );
    expect(record('tu')).toMatchObject({ requested: '>=0.6,<0.7', version: '0.6.2' });
  });

  it('refuses a different version until mcpdctl update shows and accepts it', async () => {
    world.write('profiles/default.yaml', profile('"mcp-server-time@0.7.0"'));
    const refused = await startError('tu', Date.now());
    expect(refused).toMatch(/package mcp-server-time changed since it was approved \(version 0\.6\.2 → 0\.7\.0\).*mcpdctl update tu/);

    const dry = await ctl(['update', 'tu', '--dry-run']);
    expect(dry.stdout).toContain(`- mcp-server-time@0.6.2 (${String(record('tu').integrity)})`);
    expect(dry.stdout).toMatch(/\+ mcp-server-time@0\.7\.0 \(sha256-/);
    expect(record('tu').version).toBe('0.6.2');
    const accepted = await ctl(['update', 'tu']);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('accepted: new instances of tu start mcp-server-time@0.7.0');
    world.write('profiles/default.yaml', profile('"mcp-server-time@0.7.0"', '    idleSeconds: 302\n'));
    expect(await startError('tu', Date.now())).toContain('"mcp-server-time@0.7.0"');
  });

  it('refuses the approved release once its files change on the index, until mcpdctl update accepts it', async () => {
    const approved = String(record('tu').integrity);
    index.publish('mcp-server-time', '0.7.0', [wheel('0.7.0', 'e'), sdist('0.7.0', 'f')]); // a file added to 0.7.0
    world.write('profiles/default.yaml', profile('"mcp-server-time@0.7.0"', '    idleSeconds: 303\n')); // a new pool: checked again
    const refused = await startError('tu', Date.now());
    expect(refused).toContain(
      `cannot start server tu: its package mcp-server-time changed since it was approved (integrity of 0.7.0 ${approved} → sha256-`,
    );
    expect(refused).toContain('see and accept the change with "mcpdctl update tu"; files: + mcp_server_time-0.7.0.tar.gz');

    const accepted = await ctl(['update', 'tu']);
    expect(accepted.stdout).toContain(`- mcp-server-time@0.7.0 (${approved})`);
    expect(accepted.stdout).toContain('accepted: new instances of tu start mcp-server-time@0.7.0');
    expect(record('tu').files).toEqual({
      'mcp_server_time-0.7.0-py3-none-any.whl': 'e'.repeat(64),
      'mcp_server_time-0.7.0.tar.gz': 'f'.repeat(64),
    });
    // The same pool's next start is checked again and starts the accepted release.
    expect(await startError('tu', Date.now())).toContain('uvx started as: ["--python","3.12","mcp-server-time@0.7.0"');
  }, 180_000);
});
