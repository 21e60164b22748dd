import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES } from '../../test/support/paths.js';
import { must } from '../shared/must.js';
import { packageCommand, type PackagePin } from './package-command.js';
import { filesChanged, recheckPackage } from './package-recheck.js';

interface Index {
  indexUrl: string;
  publish(name: string, version: string, files: { filename: string; sha256: string }[]): void;
  close(): Promise<void>;
}
interface NpmRegistry {
  url: string;
  publish(name: string, version: string, integrity: string): void;
  close(): Promise<void>;
}

const whl = (d: string) => ({ filename: 'tool-1.0.0-py3-none-any.whl', sha256: d.repeat(64) });
const pin = (over: Partial<PackagePin>): PackagePin => ({
  name: 'tool',
  requested: 'latest',
  version: '1.0.0',
  integrity: '',
  resolvedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

// Against the loopback registries of the e2e tests: what a pool's first start decides from the registry's answer.
describe('recheckPackage', () => {
  let index: Index;
  let npm: NpmRegistry;
  beforeAll(async () => {
    const { startPypiIndex } = (await import(join(FIXTURES, 'registries/pypi-index.mjs'))) as { startPypiIndex: () => Promise<Index> };
    const { startNpmRegistry } = (await import(join(FIXTURES, 'registries/npm-registry.mjs'))) as {
      startNpmRegistry: () => Promise<NpmRegistry>;
    };
    index = await startPypiIndex();
    npm = await startNpmRegistry();
  });
  afterAll(async () => {
    await index.close();
    await npm.close();
  });

  const uvx = must(packageCommand(['uvx', 'tool']), 'a uvx package');
  const env = () => ({ UV_DEFAULT_INDEX: index.indexUrl });

  it('same, then changed (which files), then gone, from a PyPI index', async () => {
    index.publish('tool', '1.0.0', [whl('a')]);
    const first = await recheckPackage(uvx, pin({ version: '0.0.0' }), env());
    expect(first.kind).toBe('gone');
    const approved = (await recheckPackage(uvx, pin({ integrity: 'x' }), env())) as { kind: 'changed'; now: PackagePin };
    expect(approved.kind).toBe('changed');
    const recorded = { ...approved.now };
    expect(await recheckPackage(uvx, recorded, env())).toEqual({ kind: 'same' });

    index.publish('tool', '1.0.0', [whl('b'), { filename: 'tool-1.0.0.tar.gz', sha256: 'c'.repeat(64) }]);
    const changed = await recheckPackage(uvx, recorded, env());
    expect(changed.kind).toBe('changed');
    const now = (changed as { now: PackagePin }).now;
    expect(now).toMatchObject({ version: '1.0.0', requested: 'latest' });
    expect(filesChanged(recorded, now)).toBe('; files: ~ tool-1.0.0-py3-none-any.whl, + tool-1.0.0.tar.gz');
  });

  it('unreachable when the index does not answer', async () => {
    const r = await recheckPackage(uvx, pin({ integrity: 'x' }), { UV_DEFAULT_INDEX: 'http://127.0.0.1:1/simple/' });
    expect(r.kind).toBe('unreachable');
    expect((r as { why: string }).why).toContain('cannot resolve PyPI package tool==1.0.0: http://127.0.0.1:1/pypi/tool/1.0.0/json');
  });

  it('an npm version the registry no longer has is gone; its integrity republished is changed', async () => {
    npm.publish('some-mcp', '2.0.0', 'sha512-AAAA');
    const npx = must(packageCommand(['npx', '-y', 'some-mcp@^2']), 'an npx package');
    const env = { ...process.env, npm_config_registry: npm.url };
    expect(await recheckPackage(npx, pin({ name: 'some-mcp', version: '2.0.0', integrity: 'sha512-AAAA' }), env)).toEqual({ kind: 'same' });
    expect((await recheckPackage(npx, pin({ name: 'some-mcp', version: '1.9.0', integrity: 'sha512-AAAA' }), env)).kind).toBe('gone');
    npm.publish('some-mcp', '2.0.0', 'sha512-BBBB');
    const changed = await recheckPackage(npx, pin({ name: 'some-mcp', requested: '^2', version: '2.0.0', integrity: 'sha512-AAAA' }), env);
    expect(changed).toMatchObject({ kind: 'changed', now: { version: '2.0.0', integrity: 'sha512-BBBB', requested: '^2' } });
  }, 60_000);
});
