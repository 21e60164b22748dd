import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DashboardAssets } from './dashboard-assets.js';

describe('dashboard assets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-assets-'));
  mkdirSync(join(dir, 'chunks'));
  writeFileSync(join(dir, 'chunks', 'app-frame-AB12.js'), 'export {};');
  writeFileSync(join(dir, 'secret.txt'), 'no');
  const assets = new DashboardAssets(`${dir}/`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the chunks the build split off, as scripts', () => {
    expect(assets.get('chunks/app-frame-AB12.js')).toEqual({ type: 'text/javascript; charset=utf-8', body: Buffer.from('export {};') });
  });

  it.each(['chunks/missing-X.js', 'chunks/../secret.txt', 'chunks/a/b.js', '../secret.txt', 'secret.txt', 'chunks/x.mjs'])(
    'finds nothing else (%s)',
    (name) => expect(assets.get(name)).toBeUndefined(),
  );
});
