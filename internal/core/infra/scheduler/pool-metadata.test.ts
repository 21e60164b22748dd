import { describe, expect, it } from 'vitest';
import { settle } from '../../../../test/support/scheduler-fake-clock.js';
import { FP, harness, track } from '../../../../test/support/scheduler.js';
import { must } from '../../../shared/must.js';

describe('PoolManager metadata cache', () => {
  it('starts one instance (cause metadata) for concurrent first listings, then answers from the cache', async () => {
    const h = await harness({ idleSeconds: 30 });
    h.launcher.manualStart = true;
    const a = track(h.mgr.tools(FP));
    const b = track(h.mgr.tools(FP));
    await settle();
    expect(h.launcher.starts).toHaveLength(1);
    must(h.launcher.starts[0], 'h.launcher.starts[0]').succeed();
    await settle();
    expect(a.value?.map((t) => t.name)).toEqual(['a', 'b']);
    expect(b.value).toEqual(a.value);
    expect(h.launcher.listCalls).toBe(1);
    expect(h.mgr.status()[0]?.instances[0]?.startCause).toBe('metadata');
    expect(h.mgr.capabilities(FP)).toEqual({ tools: { listChanged: true } });

    await h.clock.advance(30_000); // the metadata instance is idle-reaped like any other
    expect(h.mgr.processCount()).toBe(0);
    expect((await h.mgr.tools(FP)).map((t) => t.name)).toEqual(['a', 'b']);
    expect(h.launcher.starts).toHaveLength(1);
    expect(h.mgr.capabilities(FP)).toEqual({ tools: { listChanged: true } });
  });

  it('fills the cache when an instance starts for a call', async () => {
    const h = await harness();
    h.launcher.autoReply = true;
    const changed: string[] = [];
    h.mgr.onToolsChanged((fp) => changed.push(fp));
    await h.mgr.callTool(FP, 't', {});
    await settle();
    expect(h.mgr.cachedTools(FP)?.map((t) => t.name)).toEqual(['a', 'b']);
    expect(changed).toEqual([FP]);
  });

  it('refreshes on list_changed from any instance and reports only real changes', async () => {
    const h = await harness({ minReady: 2, maxInstances: 2 });
    await settle();
    const changed: string[] = [];
    const notes: string[] = [];
    h.mgr.onToolsChanged((fp) => changed.push(fp));
    h.mgr.onNotification((_fp, id, m) => notes.push(`${id} ${m}`));
    expect(h.mgr.cachedTools(FP)?.map((t) => t.name)).toEqual(['a', 'b']);
    h.launcher.tools = ['a', 'b', 'c'];
    must(h.launcher.sessions[1], 'h.launcher.sessions[1]').emit('notifications/tools/list_changed');
    await settle();
    expect(h.mgr.cachedTools(FP)?.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(changed).toEqual([FP]);
    expect(notes).toEqual(['srv-2 notifications/tools/list_changed']);
    must(h.launcher.sessions[0], 'h.launcher.sessions[0]').emit('notifications/tools/list_changed'); // same list: no change event
    await settle();
    expect(changed).toEqual([FP]);
  });

  it('a suspended pool without a cache refuses listings with SPEC_SUSPENDED', async () => {
    const h = await harness({}, { crashLoopThreshold: 0 });
    h.launcher.failWith = new Error('boom');
    const first = await h.mgr.tools(FP).catch((e: { reason?: string; message: string }) => e);
    expect(first).toMatchObject({ reason: 'SPEC_SUSPENDED' });
    expect(h.mgr.status()[0]?.suspended).toBe(true);
    const again = await h.mgr.tools(FP).catch((e: { reason?: string }) => e);
    expect(again).toMatchObject({ reason: 'SPEC_SUSPENDED' });
    expect(h.launcher.starts).toHaveLength(1);
  });
});
