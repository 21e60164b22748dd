import { describe, expect, it } from 'vitest';
import { settle } from '../../../../test/support/scheduler-fake-clock.js';
import { FP, harness, track } from '../../../../test/support/scheduler.js';
import { must } from '../../../shared/must.js';

describe('PoolManager routing and waiting', () => {
  it('starts nothing on reconcile for on-demand specs; the first call starts one instance', async () => {
    const h = await harness();
    expect(h.launcher.starts).toHaveLength(0);
    h.launcher.autoReply = true;
    const r = await h.mgr.callTool(FP, 'echo', { x: 1 });
    expect(r.echoed).toEqual({ name: 'echo', arguments: { x: 1 } });
    expect(h.launcher.starts).toHaveLength(1);
    expect(h.events('instance.start')[0]?.fields).toEqual({ cause: 'call' });
    expect(h.mgr.status()[0]?.instances.map((i) => i.startCause)).toEqual(['call']);
  });

  it('shares one cold start between concurrent first calls (single flight)', async () => {
    const h = await harness();
    h.launcher.manualStart = true;
    h.launcher.autoReply = true;
    const calls = [1, 2, 3].map((i) => track(h.mgr.callTool(FP, 'echo', { i })));
    await settle();
    expect(h.launcher.starts).toHaveLength(1);
    must(h.launcher.starts[0], 'h.launcher.starts[0]').succeed();
    await settle();
    expect(calls.every((c) => c.done && !c.error)).toBe(true);
    expect(h.mgr.processCount()).toBe(1);
  });

  it('routes to the least-loaded instance with round-robin ties, up to maxConcurrent each', async () => {
    const h = await harness({ minReady: 2, maxInstances: 2, maxConcurrent: 2 });
    expect(h.launcher.sessions).toHaveLength(2);
    for (let i = 0; i < 4; i++) track(h.mgr.callTool(FP, 't', { i }));
    await settle();
    const perPid = (pid: number) => h.launcher.calls.filter((c) => c.session.pid === pid).length;
    expect(
      h.launcher.calls
        .map((c) => c.session.pid)
        .slice(0, 2)
        .sort(),
    ).toEqual([1000, 1001]);
    expect([perPid(1000), perPid(1001)]).toEqual([2, 2]);
    const fifth = track(h.mgr.callTool(FP, 't', { i: 5 }));
    await settle();
    expect(h.launcher.calls).toHaveLength(4);
    expect(h.launcher.sessions).toHaveLength(2); // capped: no third instance
    expect(h.mgr.status()[0]?.waiting).toBe(1);
    must(h.launcher.calls[2], 'h.launcher.calls[2]').resolve({ ok: true });
    await settle();
    expect(h.launcher.calls).toHaveLength(5);
    expect(h.launcher.calls[4]?.session.pid).toBe(must(h.launcher.calls[2], 'call 2').session.pid);
    expect(fifth.done).toBe(false);
  });

  it('scales out when every instance is full, and serves waiters first in, first out', async () => {
    const h = await harness({ maxInstances: 2, maxConcurrent: 1 });
    track(h.mgr.callTool(FP, 'c1', {}));
    track(h.mgr.callTool(FP, 'c2', {}));
    await settle();
    expect(
      must(h.mgr.status()[0], 'the pool status')
        .instances.map((i) => i.startCause)
        .sort(),
    ).toEqual(['call', 'scale-out']);
    const w3 = track(h.mgr.callTool(FP, 'c3', {}));
    const w4 = track(h.mgr.callTool(FP, 'c4', {}));
    await settle();
    expect(h.launcher.sessions).toHaveLength(2);
    must(h.launcher.calls[1], 'h.launcher.calls[1]').resolve({});
    await settle();
    expect(h.launcher.calls.map((c) => c.params.name)).toEqual(['c1', 'c2', 'c3']);
    expect(w3.done || w4.done).toBe(false);
  });

  it('fails a waiter with POOL_SATURATED after poolWaitSeconds, naming the pool, cap and waiters', async () => {
    const h = await harness({ maxInstances: 1, maxConcurrent: 1 });
    track(h.mgr.callTool(FP, 'busy', {}));
    await settle();
    const waiter = track(h.mgr.callTool(FP, 'late', {}));
    await h.clock.advance(4999);
    expect(waiter.done).toBe(false);
    await h.clock.advance(1);
    expect(waiter.error?.reason).toBe('POOL_SATURATED');
    expect(waiter.error?.message).toMatch(/pool for server srv is saturated: 1 of maxInstances=1 .*maxConcurrent=1; 1 call\(s\) waiting/);
    expect(h.mgr.status()[0]?.waiting).toBe(0);
    // Every wait is reported with its length and outcome (mcpd_pool_wait_seconds): the first call's
    // wait on the cold start was served, the second ran out after poolWaitSeconds.
    const waits = h.events('pool.wait').map((e) => e.fields);
    expect(waits).toContainEqual({ seconds: 5, outcome: 'saturated' });
    expect(waits.filter((f) => f?.outcome === 'served')).toHaveLength(1);
  });

  it('bounds the wait by the call deadline when it is shorter than poolWaitSeconds', async () => {
    const h = await harness({ maxInstances: 1, maxConcurrent: 1 });
    track(h.mgr.callTool(FP, 'busy', {}));
    await settle();
    const waiter = track(h.mgr.callTool(FP, 'late', {}, { timeoutMs: 1000 }));
    await h.clock.advance(1000);
    expect(waiter.error?.reason).toBe('POOL_SATURATED');
  });

  it('a cold start slower than poolWaitSeconds is bounded by the call deadline, not reported as saturation', async () => {
    const h = await harness({}, { poolWaitSeconds: 1 });
    h.launcher.manualStart = true;
    const c = track(h.mgr.callTool(FP, 'x', {}, { timeoutMs: 3000 }));
    await h.clock.advance(2000);
    expect(c.done).toBe(false);
    await h.clock.advance(1000);
    expect(c.error?.reason).toBe('DEADLINE_EXCEEDED');
    expect(c.error?.message).toMatch(/did not become ready/);
  });

  it('cancels a waiting call on its abort signal', async () => {
    const h = await harness({ maxInstances: 1, maxConcurrent: 1 });
    track(h.mgr.callTool(FP, 'busy', {}));
    await settle();
    const ac = new AbortController();
    const waiter = track(h.mgr.callTool(FP, 'late', {}, { signal: ac.signal }));
    await settle();
    ac.abort();
    await settle();
    expect(waiter.error?.reason).toBe('CANCELLED');
    expect(h.mgr.status()[0]?.waiting).toBe(0);
  });

  it('stateful: binds a routing key to its instance, refreshes the TTL on use, forgets it after', async () => {
    const h = await harness({
      strategy: 'stateful',
      minReady: 2,
      maxInstances: 2,
      maxConcurrent: 1,
      sessionTTLSeconds: 60,
      idleSeconds: 0,
    });
    h.launcher.autoReply = true;
    const pidOf = async (key: string) => (await h.mgr.callTool(FP, 't', {}, { routingKey: key })).pid;
    const a = await pidOf('A');
    const b = await pidOf('B');
    expect(b).not.toBe(a);
    for (let i = 0; i < 3; i++) {
      await h.clock.advance(50_000); // each use refreshes the 60 s TTL
      expect(await pidOf('A')).toBe(a);
    }
    expect(
      must(h.mgr.status()[0], 'the pool status')
        .instances.map((i) => i.boundKeys)
        .sort(),
    ).toEqual([0, 1]); // B expired, A live
    await h.clock.advance(61_000);
    expect(h.mgr.status()[0]?.instances.map((i) => i.boundKeys)).toEqual([0, 0]);
  });

  it('stateful: a caller waits for its own busy instance rather than moving to another', async () => {
    const h = await harness({ strategy: 'stateful', minReady: 2, maxInstances: 2, maxConcurrent: 1, idleSeconds: 0 });
    track(h.mgr.callTool(FP, 'a1', {}, { routingKey: 'A' }));
    await settle();
    const a2 = track(h.mgr.callTool(FP, 'a2', {}, { routingKey: 'A' }));
    track(h.mgr.callTool(FP, 'b1', {}, { routingKey: 'B' }));
    await settle();
    expect(h.launcher.calls.map((c) => c.params.name)).toEqual(['a1', 'b1']);
    must(h.launcher.calls[0], 'h.launcher.calls[0]').resolve({});
    await settle();
    expect(h.launcher.calls[2]?.params.name).toBe('a2');
    expect(h.launcher.calls[2]?.session).toBe(must(h.launcher.calls[0], 'call 0').session);
    expect(a2.done).toBe(false);
  });

  it('singleton: never more than one instance', async () => {
    const h = await harness({ strategy: 'singleton', maxInstances: 4, maxConcurrent: 1 });
    track(h.mgr.callTool(FP, 'a', {}));
    track(h.mgr.callTool(FP, 'b', {}));
    await settle();
    expect(h.launcher.sessions).toHaveLength(1);
    expect(h.mgr.status()[0]?.waiting).toBe(1);
  });

  it('rejects calls to unknown fingerprints with NOT_FOUND', async () => {
    const h = await harness();
    await expect(h.mgr.callTool('nope', 't', {})).rejects.toThrow(/no server pool with fingerprint nope/);
  });

  it('coalesces status-change notifications', async () => {
    const h = await harness({ maxInstances: 3, maxConcurrent: 1 });
    let n = 0;
    h.mgr.onStatusChange(() => n++);
    h.launcher.autoReply = true;
    await Promise.all([1, 2, 3].map(() => h.mgr.callTool(FP, 't', {})));
    await settle();
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(10);
  });

  it('a call waiting for its caller lends its slot to read-only calls only, until the loan ends', async () => {
    const h = await harness({ maxInstances: 1, maxConcurrent: 1 });
    track(h.mgr.callTool(FP, 'asks', {}, { routingKey: 'bob' }));
    await settle();
    const id = must(h.mgr.status()[0]?.instances[0], 'the instance').id;
    const write = track(h.mgr.callTool(FP, 'writes', {}, { routingKey: 'alice' }));
    const back = h.mgr.lendSlot(id);
    const read = track(h.mgr.callTool(FP, 'reads', {}, { routingKey: 'alice', readOnly: true }));
    await settle();
    // The read runs in the lent slot; the other call keeps waiting, first in line as it was.
    expect(h.launcher.calls.map((c) => c.params.name)).toEqual(['asks', 'reads']);
    expect(h.mgr.callersOf(id)).toEqual(['bob', 'alice']);
    must(h.launcher.calls[1], 'the read').resolve({ ok: true });
    await settle();
    expect(read.done).toBe(true);
    back();
    // Loan over: a read waits like any call while the asking call holds the slot.
    const late = track(h.mgr.callTool(FP, 'reads', {}, { routingKey: 'alice', readOnly: true }));
    await settle();
    expect(h.launcher.calls).toHaveLength(2);
    must(h.launcher.calls[0], 'the asking call').resolve({});
    await settle();
    expect(h.launcher.calls.map((c) => c.params.name)).toEqual(['asks', 'reads', 'writes']);
    expect(write.done || late.done).toBe(false);
  });

  it('an instance with no call in flight has no slot to lend', async () => {
    const h = await harness({ minReady: 1, maxInstances: 1, maxConcurrent: 1 });
    const id = must(h.mgr.status()[0]?.instances[0], 'the instance').id;
    h.mgr.lendSlot(id);
    track(h.mgr.callTool(FP, 'a', {}, { readOnly: true }));
    track(h.mgr.callTool(FP, 'b', {}, { readOnly: true }));
    await settle();
    expect(h.launcher.calls).toHaveLength(1);
  });
});
