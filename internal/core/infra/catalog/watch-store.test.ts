import { mkdtemp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../store/index.js';
import { watchStore, type StoreWatcher } from './watch-store.js';
import { must } from '../../../shared/must.js';

/** Collects results and lets a test wait, with a bound, for one that matches. */
class Results {
  private readonly seen: LoadResult[] = [];
  private waiters: Array<() => void> = [];

  push = (r: LoadResult): void => {
    this.seen.push(r);
    for (const w of this.waiters.splice(0)) w();
  };

  async next(match: (r: LoadResult) => boolean, timeoutMs = 10_000): Promise<LoadResult> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.seen.findIndex(match);
      if (i >= 0) return must(this.seen.splice(0, i + 1).at(-1), 'the matched reload');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching reload within ${timeoutMs} ms; saw ${JSON.stringify(this.seen.map((r) => r.ok))}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, left);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }
}

const servers = (r: LoadResult, profile = 'default'): string[] =>
  r.ok ? (r.store.profiles.get(profile)?.servers ?? []).map((s) => s.name) : [];

let dir: string;
let watcher: StoreWatcher | undefined;
let results: Results;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mcpd-watch-'));
  await mkdir(join(dir, 'profiles'));
  await writeFile(join(dir, 'profiles/default.yaml'), 'servers: [{ name: one, cmd: [x] }]\n');
  await writeFile(join(dir, 'callers.yaml'), 'callers: {}\n');
  results = new Results();
  watcher = watchStore(dir, results.push, { env: {}, debounceMs: 50 });
  await watcher.ready;
});

afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('watchStore', () => {
  it('reloads after an edit in place', async () => {
    await writeFile(join(dir, 'profiles/default.yaml'), 'servers: [{ name: two, cmd: [x] }]\n');
    const r = await results.next((x) => servers(x).includes('two'));
    expect(servers(r)).toEqual(['two']);
  });

  it('reloads after an editor-style save (write a temp file, rename it over)', async () => {
    const tmp = join(dir, 'profiles/.default.yaml.swp');
    await writeFile(tmp, 'servers: [{ name: renamed-in, cmd: [x] }]\n');
    await rename(tmp, join(dir, 'profiles/default.yaml'));
    await results.next((x) => servers(x).includes('renamed-in'));
  });

  it('sees added and removed profiles and callers.yaml edits', async () => {
    await writeFile(join(dir, 'profiles/dev.yaml'), 'servers: [{ name: d, cmd: [x] }]\n');
    const added = await results.next((x) => x.ok && x.store.profiles.has('dev'));
    expect(servers(added, 'dev')).toEqual(['d']);
    await writeFile(join(dir, 'callers.yaml'), 'callers: { vscode: dev }\n');
    await results.next((x) => x.ok && x.store.callers.get('vscode') === 'dev');
    await writeFile(join(dir, 'callers.yaml'), 'callers: {}\n');
    await rm(join(dir, 'profiles/dev.yaml'));
    await results.next((x) => x.ok && !x.store.profiles.has('dev'));
  });

  it('delivers an invalid edit as ok:false with the issues, then recovers', async () => {
    await writeFile(join(dir, 'profiles/default.yaml'), 'servers: [{ name: one, cmd: [x], maxInstances: 0 }]\n');
    const bad = await results.next((x) => !x.ok);
    expect(bad.ok ? [] : bad.issues.map((i) => [i.line, i.field])).toEqual([[1, 'servers[0].maxInstances']]);
    await writeFile(join(dir, 'profiles/default.yaml'), 'servers: [{ name: fixed, cmd: [x] }]\n');
    await results.next((x) => servers(x).includes('fixed'));
  });

  it('stops delivering after close', async () => {
    await watcher?.close();
    let delivered = false;
    const w2 = watchStore(
      dir,
      () => {
        delivered = true;
      },
      { env: {}, debounceMs: 10 },
    );
    await w2.ready;
    await w2.close();
    await writeFile(join(dir, 'profiles/default.yaml'), 'servers: []\n');
    // The first watcher is closed too; a fresh one proves events still flow for this file.
    const r3 = new Results();
    watcher = watchStore(dir, r3.push, { env: {}, debounceMs: 10 });
    await watcher.ready;
    await writeFile(join(dir, 'profiles/default.yaml'), 'servers: [{ name: after, cmd: [x] }]\n');
    await r3.next((x) => servers(x).includes('after'));
    expect(delivered).toBe(false);
  });
});
