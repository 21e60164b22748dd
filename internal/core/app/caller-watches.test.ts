import { describe, expect, it } from 'vitest';
import { specFingerprint } from '../../contract/model/fingerprint.js';
import { CallerHistories } from '../domain/history/tool-call-history.js';
import type { JsonObject } from '../../shared/json.js';
import { DEFAULT_NAMESPACE, DEFAULT_RUNTIME, type Profile, type ProfileStore } from '../../contract/model/profile.js';
import type { AreaDeps } from './area-deps.js';
import { ListingBudget } from './listing-budget.js';
import { spec } from '../../../test/support/context-fake-pools.js';
import type { PoolPort } from './pool-port.js';
import { PromptService } from './prompt-service.js';
import { ResourceService } from './resource-service.js';

const ONE = spec('one');
const TWO = spec('two');
type Note = (fp: string, instance: string, method: string, params: JsonObject) => void;

/** Each server lists one resource and one prompt named after it, with a version bumped by `bump`. */
function world() {
  const version = new Map<string, number>([
    [specFingerprint(ONE), 1],
    [specFingerprint(TWO), 1],
  ]);
  const name = (fp: string) => (fp === specFingerprint(ONE) ? 'one' : 'two');
  const notes: Note[] = [];
  const pools = {
    capabilities: () => ({ resources: { listChanged: true }, prompts: { listChanged: true } }),
    request: async (fp: string, method: string) => {
      const n = `${name(fp)}-v${version.get(fp)}`;
      if (method === 'resources/list') return { resources: [{ uri: `r://${n}`, name: n }] };
      if (method === 'resources/templates/list') return { resourceTemplates: [] };
      if (method === 'prompts/list') return { prompts: [{ name: n }] };
      throw new Error(`unexpected ${method}`);
    },
    onNotification: (cb: Note) => void notes.push(cb),
  } as unknown as PoolPort;
  const profile = (n: string, servers = [ONE]): Profile => ({
    name: n,
    file: `${n}.yaml`,
    servers,
    inputs: [],
    namespace: DEFAULT_NAMESPACE,
  });
  const makeStore = (callers: Record<string, string>): ProfileStore => ({
    dir: '/x',
    profiles: new Map([
      ['default', profile('default')],
      ['p1', profile('p1', [ONE])],
      ['p2', profile('p2', [TWO])],
    ]),
    callers: new Map(Object.entries(callers)),
    runtime: DEFAULT_RUNTIME,
  });
  const store = { current: makeStore({ me: 'p1' }) };
  const deps = {
    pools,
    store: store as unknown as AreaDeps['store'],
    tools: undefined as unknown as AreaDeps['tools'],
    listingBudget: new ListingBudget(() => DEFAULT_RUNTIME.listingBudgetSeconds * 1000),
    history: new CallerHistories(),
    profileOf: (caller: string) => {
      const p = store.current.profiles.get(store.current.callers.get(caller) ?? 'default');
      return p ?? store.current.profiles.get('default')!;
    },
    log: () => {},
  } satisfies AreaDeps;
  const listChanged = (sp: typeof ONE, area: 'resources' | 'prompts') => {
    const fp = specFingerprint(sp);
    version.set(fp, (version.get(fp) ?? 0) + 1);
    for (const cb of notes) cb(fp, 'i1', `notifications/${area}/list_changed`, {});
  };
  return { deps, store, makeStore, listChanged };
}

/** The next value within 3 s. */
async function next<T>(it: AsyncIterableIterator<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('nothing within 3 s')), 3000)));
  try {
    const r = await Promise.race([it.next(), timeout]);
    if (r.done) throw new Error('the watch ended');
    return r.value;
  } finally {
    clearTimeout(timer);
  }
}

/** Reads until the snapshot satisfies `ok` (bounded by next()'s timeout). */
async function until<T>(it: AsyncIterableIterator<T>, ok: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await next(it);
    if (ok(v)) return v;
  }
}

describe('resource and prompt watches follow the caller', () => {
  it('a reload that moves the caller to another profile moves its resource watch', async () => {
    const w = world();
    const svc = new ResourceService(w.deps);
    const watch = svc.watch('me');
    const uris = (s: { resources: readonly { uri: string }[] }) => s.resources.map((r) => r.uri);
    await until(watch, (s) => uris(s).includes('r://one-v1'));
    const other = svc.watch('someone-else'); // stays on default
    await until(other, (s) => uris(s).includes('r://one-v1'));

    w.store.current = w.makeStore({ me: 'p2' });
    svc.applyStore();
    expect(uris(await until(watch, (s) => uris(s).length > 0 && !uris(s).includes('r://one-v1')))).toEqual(['r://two-v1']);

    // Changes of the new profile reach it; the old profile's do not.
    w.listChanged(TWO, 'resources');
    expect(uris(await next(watch))).toEqual(['r://two-v2']);
    w.listChanged(ONE, 'resources');
    expect(uris(await until(other, (s) => uris(s).includes('r://one-v2')))).toEqual(['r://one-v2']);
    w.listChanged(TWO, 'resources');
    expect(uris(await next(watch))).toEqual(['r://two-v3']); // nothing from "one" came in between
    svc.close();
    expect((await watch.next()).done).toBe(true);
  });

  it('a reload that moves the caller moves its prompt watch', async () => {
    const w = world();
    const svc = new PromptService(w.deps);
    const watch = svc.watch('me');
    const names = (s: { prompts: readonly { name: string }[] }) => s.prompts.map((p) => p.name);
    await until(watch, (s) => names(s).length > 0);
    w.store.current = w.makeStore({ me: 'p2' });
    svc.applyStore();
    const moved = await until(watch, (s) => names(s).length > 0 && !names(s).some((n) => n.includes('one')));
    expect(names(moved).join()).toMatch(/two-v1/);
    w.listChanged(TWO, 'prompts');
    expect(names(await next(watch)).join()).toMatch(/two-v2/);
    svc.close();
  });

  it('a watch that already has the current etag gets nothing until a change', async () => {
    const w = world();
    const svc = new ResourceService(w.deps);
    const first = svc.watch('me');
    const loaded = await until(first, (s) => s.resources.length > 0);
    const resumed = svc.watch('me', loaded.etag);
    let got: unknown;
    void resumed.next().then((r) => (got = r.value));
    await Promise.resolve();
    expect(got).toBeUndefined();
    w.listChanged(ONE, 'resources');
    await expect.poll(() => (got as { resources?: { uri: string }[] } | undefined)?.resources?.[0]?.uri).toBe('r://one-v2');
    svc.close();
  });
});
