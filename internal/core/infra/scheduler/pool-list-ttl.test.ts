import { describe, expect, it } from 'vitest';
import { settle } from '../../../../test/support/scheduler-fake-clock.js';
import { FP, harness } from '../../../../test/support/scheduler.js';

// A 2026-07-28 server's ttlMs on its tool list, as the pool keeps it (list-freshness.ts, docs/eras.md).
describe('PoolManager metadata cache: list TTLs', () => {
  it('serves the list while fresh, lists again once its TTL ran out, and the new list starts a new TTL', async () => {
    const h = await harness({ idleSeconds: 300 });
    h.launcher.listTtlMs = 1000;
    expect((await h.mgr.tools(FP)).map((t) => t.name)).toEqual(['a', 'b']);
    const listed = h.launcher.listCalls;
    h.launcher.tools = ['a', 'b', 'c'];
    await h.clock.advance(999);
    expect(h.mgr.listStale(FP, 'tools/list')).toBe(false);
    expect(h.mgr.listFreshForMs(FP, 'tools/list')).toBe(1);
    expect((await h.mgr.tools(FP)).map((t) => t.name)).toEqual(['a', 'b']);
    expect(h.launcher.listCalls).toBe(listed);
    await h.clock.advance(1);
    expect(h.mgr.listStale(FP, 'tools/list')).toBe(true);
    expect((await h.mgr.tools(FP)).map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(h.launcher.listCalls).toBe(listed + 1);
    expect(h.mgr.listStale(FP, 'tools/list')).toBe(false);
    expect(h.mgr.listFreshForMs(FP, 'tools/list')).toBe(1000);
  });

  it('ttlMs 0 with listChanged heard: kept until the server says it changed', async () => {
    const h = await harness({ idleSeconds: 300 });
    h.launcher.listTtlMs = 0;
    await h.mgr.tools(FP);
    const listed = h.launcher.listCalls;
    await h.clock.advance(60_000);
    expect(h.mgr.listStale(FP, 'tools/list')).toBe(false);
    expect(h.mgr.listFreshForMs(FP, 'tools/list')).toBeUndefined();
    await h.mgr.tools(FP);
    expect(h.launcher.listCalls).toBe(listed);
  });

  it('a pool at zero instances serves its stale list without starting a server; the next instance lists it again', async () => {
    const h = await harness({ idleSeconds: 30 });
    h.launcher.listTtlMs = 1000;
    await h.mgr.tools(FP);
    await h.clock.advance(30_000); // idle-reaped, and the TTL ran out long ago
    expect(h.mgr.processCount()).toBe(0);
    h.launcher.tools = ['z'];
    expect(h.mgr.listStale(FP, 'tools/list')).toBe(false);
    expect((await h.mgr.tools(FP)).map((t) => t.name)).toEqual(['a', 'b']);
    expect(h.launcher.starts).toHaveLength(1);
    // A call starts an instance: it lists the stale tools again as it attaches.
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 'a', {});
    await settle();
    expect((await h.mgr.tools(FP)).map((t) => t.name)).toEqual(['z']);
  });
});
