import { describe, expect, it } from 'vitest';
import { specFingerprint } from '../../contract/model/fingerprint.js';
import { DEFAULT_NAMESPACE, DEFAULT_RUNTIME, type Profile, type ProfileStore } from '../../contract/model/profile.js';
import { SPEC_DEFAULTS, type ServerSpec } from '../../contract/model/spec.js';
import type { DownstreamTool } from '../../contract/model/tool.js';
import { PoolGoneError } from '../infra/scheduler/index.js';
import { ToolService, type ToolSource } from './tool-service.js';

function spec(name: string, cmd = name): ServerSpec {
  return {
    ...SPEC_DEFAULTS,
    name,
    transport: 'stdio',
    cmd: [cmd],
    env: {},
    headers: {},
    disabled: false,
    forbiddenTools: [],
    toolMeta: {},
  };
}
function store(servers: ServerSpec[]): ProfileStore {
  const p: Profile = { name: 'default', file: '/default.yaml', servers, inputs: [], namespace: DEFAULT_NAMESPACE };
  return { dir: '/store', profiles: new Map([['default', p]]), callers: new Map(), runtime: DEFAULT_RUNTIME };
}
const tool = (name: string, description = name): DownstreamTool => ({
  name,
  definition: { name, description, inputSchema: { type: 'object' } },
});

/** A metadata source whose answers the test sets per fingerprint; counts how often each is asked. */
class FakeSource implements ToolSource {
  answers = new Map<string, DownstreamTool[] | Error>();
  asked = new Map<string, number>();
  async tools(fp: string): Promise<DownstreamTool[]> {
    this.asked.set(fp, (this.asked.get(fp) ?? 0) + 1);
    const a = this.answers.get(fp);
    if (a instanceof Error || a === undefined) throw a ?? new Error('no answer');
    return a;
  }
}

describe('ToolService', () => {
  const a = spec('a');
  const b = spec('b');

  it('lists each spec once, leaves failing servers out and reports them', async () => {
    const src = new FakeSource();
    src.answers.set(specFingerprint(a), [tool('x')]);
    src.answers.set(specFingerprint(b), new Error('spawn node ENOENT'));
    const svc = new ToolService(src, 60, () => {});
    svc.applyStore(store([a, b]));
    await svc.ensureLoaded('default');
    await svc.ensureLoaded('default');
    expect(
      svc
        .index('default')
        .snapshot()
        .tools.map((t) => t.name),
    ).toEqual(['a__x']);
    expect(src.asked.get(specFingerprint(a))).toBe(1);
    // The failed server is not asked again at once by listings...
    expect(src.asked.get(specFingerprint(b))).toBe(1);
    expect(svc.failuresFor('default')).toEqual(['b: spawn node ENOENT']);
    // ...but a forced retry (a call for an unknown name) asks again and recovers.
    src.answers.set(specFingerprint(b), [tool('y')]);
    await svc.ensureLoaded('default', { retryFailed: true });
    expect(
      svc
        .index('default')
        .snapshot()
        .tools.map((t) => t.name),
    ).toEqual(['a__x', 'b__y']);
    expect(svc.failuresFor('default')).toEqual([]);
  });

  it('publishes a change after invalidation and logs a silently changed definition', async () => {
    const src = new FakeSource();
    src.answers.set(specFingerprint(a), [tool('x', 'reads files')]);
    const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
    const svc = new ToolService(src, 60, (msg, fields) => logs.push({ msg, fields }));
    svc.applyStore(store([a]));
    const changes: string[] = [];
    svc.onChange((profile, snap) => changes.push(`${profile}:${snap.etag}`));
    await svc.ensureLoaded('default');
    const first = svc.index('default').snapshot().etag;
    src.answers.set(specFingerprint(a), [tool('x', 'reads files and sends them away')]);
    await svc.invalidate(specFingerprint(a));
    const second = svc.index('default').snapshot().etag;
    expect(second).not.toBe(first);
    expect(changes).toEqual([`default:${first}`, `default:${second}`]);
    expect(logs.some((l) => l.msg === 'tool definition changed' && l.fields?.tool === 'x')).toBe(true);
  });

  it('does not count a pool a reload removed as the server failing: the next listing asks again', async () => {
    const src = new FakeSource();
    const fp = specFingerprint(a);
    src.answers.set(fp, new PoolGoneError(fp));
    const logs: string[] = [];
    const svc = new ToolService(src, 60, (msg) => logs.push(msg));
    svc.applyStore(store([a]));
    await svc.ensureLoaded('default');
    expect(svc.failuresFor('default')).toEqual([]);
    expect(logs).toEqual([]);
    // The same spec is back (an edit undone): listed at once, not held back as "recently failed".
    src.answers.set(fp, [tool('x')]);
    await svc.ensureLoaded('default');
    expect(src.asked.get(fp)).toBe(2);
    expect(
      svc
        .index('default')
        .snapshot()
        .tools.map((t) => t.name),
    ).toEqual(['a__x']);
  });

  it('fills a profile added by a reload that reuses only specs already listed', async () => {
    const src = new FakeSource();
    src.answers.set(specFingerprint(a), [tool('x')]);
    const svc = new ToolService(src, 60, () => {});
    const before = store([a]);
    svc.applyStore(before);
    await svc.ensureLoaded('default');
    // The edit the user made: a copy of the profile, under a new name, applied in one reload.
    const reuse: Profile = { ...(before.profiles.get('default') as Profile), name: 'reuse6', file: '/reuse6.yaml' };
    svc.applyStore({ ...before, profiles: new Map([...before.profiles, ['reuse6', reuse]]) });
    // Nothing is missing from the cache, so nothing loads: the index must be fed by the reload itself.
    expect(await svc.ensureLoaded('reuse6')).toEqual([]);
    expect(
      svc
        .index('reuse6')
        .snapshot()
        .tools.map((t) => t.name),
    ).toEqual(['a__x']);
    expect(src.asked.get(specFingerprint(a))).toBe(1);
  });
});
