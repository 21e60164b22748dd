import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStore } from '../../../store/index.js';
import { store } from '../../../../test/support/catalog-store.js';
import { watchStore } from './watch-store.js';

describe('a single catalog file given as the store', () => {
  it('loads as the default profile, every caller gets it, relative paths from its folder', async () => {
    const dir = await store({ 'servers.yaml': ['servers:', '  - name: a', '    cmd: [node, x.js]', '    cwd: sub'] });
    const file = join(dir, 'servers.yaml');
    const r = await loadStore(file, { env: {} });
    if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
    expect([...r.store.profiles.keys()]).toEqual(['default']);
    expect(r.store.profiles.get('default')?.servers.map((s) => [s.name, s.cwd])).toEqual([['a', join(dir, 'sub')]]);
    expect(r.store.callers.size).toBe(0);
    expect(r.store.dir).toBe(file);
  });

  it('reports its problems with file, line and field, and is never scaffolded', async () => {
    const dir = await store({ 'servers.yaml': ['servers:', '  - name: a', '    cmd: [node, x.js]', '    maxInstances: 0'] });
    const file = join(dir, 'servers.yaml');
    const r = await loadStore(file, { env: {}, scaffold: true });
    if (r.ok) throw new Error('should fail');
    expect(r.issues.map((i) => [i.file, i.line, i.field])).toEqual([[file, 4, 'servers[0].maxInstances']]);
  });

  it('is watched: an edit of the file reloads it', async () => {
    const dir = await store({ 'servers.yaml': ['servers: []'] });
    const file = join(dir, 'servers.yaml');
    const results: string[][] = [];
    let got: () => void = () => {};
    const next = new Promise<void>((r) => (got = r));
    const w = watchStore(file, (r) => {
      if (r.ok) results.push(r.store.profiles.get('default')?.servers.map((s) => s.name) ?? []);
      if (results.some((n) => n.includes('b'))) got();
    });
    try {
      await w.ready;
      await writeFile(file, 'servers:\n  - name: b\n    cmd: [node, y.js]\n');
      await next;
      expect(results.at(-1)).toEqual(['b']);
    } finally {
      await w.close();
    }
  });
});
