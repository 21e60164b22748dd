import { describe, expect, it } from 'vitest';
import type { ToolEntry } from '../../../contract/model/tool.js';
import { ProfileIndex } from './tool-index.js';
import { caught, profile, spec, tool } from '../../../../test/support/aggregator.js';

function listAll(idx: ProfileIndex, size: number): { names: string[]; etag: string } {
  const names: string[] = [];
  let cursor: string | undefined;
  let etag = '';
  for (let guard = 0; guard < 10_000; guard++) {
    const p = idx.list(cursor, size);
    names.push(...p.items.map((t: ToolEntry) => t.name));
    etag = p.etag;
    cursor = p.nextCursor;
    if (cursor === undefined) break;
  }
  return { names, etag };
}

const servers = new Map([
  ['fs', [tool('read_file'), tool('write_file')]],
  ['git', [tool('status')]],
]);

describe('ProfileIndex', () => {
  it('starts empty and publishes only when the etag changes', async () => {
    const idx = new ProfileIndex({ profile: profile([spec('fs'), spec('git')]), fingerprintOf: (s) => `fp-${s}` });
    const watch = idx.watch();
    const first = await watch.next();
    expect(first.value?.tools).toEqual([]);
    expect(idx.update(servers)).toBe(true);
    expect((await watch.next()).value?.tools.map((t: { name: string }) => t.name)).toEqual([
      'fs__read_file',
      'fs__write_file',
      'git__status',
    ]);
    // Same content again: no change, no publish.
    expect(idx.update(new Map([...servers]))).toBe(false);
    const pending = watch.next();
    expect(idx.update(new Map([['fs', [tool('read_file')]]]))).toBe(true);
    expect((await pending).value?.tools.map((t: { name: string }) => t.name)).toEqual(['fs__read_file']);
    await watch.return?.();
    expect(idx.watcherCount).toBe(0);
    idx.close();
  });

  it('routes with fresh fingerprints even when the visible listing did not change', () => {
    const idx = new ProfileIndex({ profile: profile([spec('fs'), spec('git')]), fingerprintOf: (s) => `old-${s}` });
    idx.update(servers);
    const etag = idx.snapshot().etag;
    expect(idx.reconfigure(profile([spec('fs'), spec('git')]), (s) => `new-${s}`)).toBe(false);
    expect(idx.snapshot().etag).toBe(etag);
    expect(idx.resolve('fs__read_file')).toMatchObject({ fingerprint: 'new-fs', downstreamName: 'read_file' });
  });

  it('reconfigure applies new filters to the last known tool lists', () => {
    const idx = new ProfileIndex({ profile: profile([spec('fs'), spec('git')]), fingerprintOf: (s) => s });
    idx.update(servers);
    expect(idx.reconfigure(profile([spec('fs', { forbiddenTools: ['write_file'] }), spec('git', { disabled: true })]))).toBe(true);
    expect(idx.snapshot().tools.map((t) => t.name)).toEqual(['fs__read_file']);
  });

  it('a stale watcher gets the current snapshot at once; an up-to-date one waits', async () => {
    const idx = new ProfileIndex({ profile: profile([spec('fs'), spec('git')]), fingerprintOf: (s) => s });
    idx.update(servers);
    const current = idx.snapshot();
    const stale = idx.watch('not-the-etag');
    expect((await stale.next()).value?.etag).toBe(current.etag);
    const upToDate = idx.watch(current.etag);
    const pending = upToDate.next();
    idx.update(new Map([['git', [tool('status')]]]));
    const got = await pending;
    expect(got.value?.etag).toBe(idx.snapshot().etag);
    expect(got.value?.etag).not.toBe(current.etag);
    idx.close();
    expect((await stale.next()).done).toBe(true);
  });

  it('pages one consistent snapshot across a change, and expires old cursors', () => {
    let t = 0;
    const many = new Map([['fs', Array.from({ length: 25 }, (_, i) => tool(`t${String(i).padStart(2, '0')}`))]]);
    const idx = new ProfileIndex({ profile: profile([spec('fs')]), fingerprintOf: (s) => s, retentionSeconds: 30, now: () => t });
    idx.update(many);
    const p1 = idx.list(undefined, 10);
    idx.update(new Map([['fs', [tool('other')]]]));
    const p2 = idx.list(p1.nextCursor, 10);
    const p3 = idx.list(p2.nextCursor, 10);
    expect([...p1.items, ...p2.items, ...p3.items].map((e) => e.downstreamName)).toEqual(many.get('fs')?.map((x) => x.name));
    expect(new Set([p1.etag, p2.etag, p3.etag]).size).toBe(1);
    expect(p3.nextCursor).toBeUndefined();
    expect(idx.snapshotAt(p3.etag)?.tools).toHaveLength(25);
    const again = idx.list(undefined, 10);
    expect(again.items.map((e) => e.name)).toEqual(['fs__other']);
    t += 30_000;
    expect(caught(() => idx.list(p1.nextCursor, 10)).reason).toBe('CURSOR_EXPIRED');
    expect(caught(() => idx.list('junk', 10)).reason).toBe('INVALID_ARGUMENT');
  });

  it('resolve names the missing tool and suggests close exposed names', () => {
    const idx = new ProfileIndex({ profile: profile([spec('fs'), spec('git')]), fingerprintOf: (s) => s });
    idx.update(servers);
    expect(idx.resolve('git__status').downstreamName).toBe('status');
    const byRaw = caught(() => idx.resolve('read_file'));
    expect(byRaw.reason).toBe('NOT_FOUND');
    expect(byRaw.message).toMatch(/no tool named "read_file" in profile "dev"; did you mean "fs__read_file"/);
    expect(caught(() => idx.resolve('fs__raed_file')).message).toMatch(/did you mean "fs__read_file"/);
    expect(caught(() => idx.resolve('completely-unrelated-thing')).message).toMatch(/list the tools/);
  });

  // How fast is measured in bench/run.mjs (listing), not asserted here: tests carry no timings.
  it('indexes 20 servers × 50 tools and pages all 1,000 the same way every walk', () => {
    const specs = Array.from({ length: 20 }, (_, i) => spec(`server${i}`));
    const tools = new Map(specs.map((s) => [s.name, Array.from({ length: 50 }, (_, j) => tool(`tool_${j}`, `tool ${j} of ${s.name}`))]));
    const idx = new ProfileIndex({ profile: profile(specs), fingerprintOf: (s) => s });
    idx.update(tools);
    const walks = new Set<string>();
    for (let i = 0; i < 20; i++) walks.add(listAll(idx, 100).names.join(','));
    expect(walks.size).toBe(1);
    expect(listAll(idx, 100).names).toHaveLength(1000);
    expect(idx.update(new Map(tools))).toBe(false);
  });
});
