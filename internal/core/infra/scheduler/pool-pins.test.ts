import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { settle } from '../../../../test/support/scheduler-fake-clock.js';
import { FP, harness, track } from '../../../../test/support/scheduler.js';
import { must } from '../../../shared/must.js';

const KEY = 'mcpd/resource-subscription:x://1';

/** The pid that answered a request sent with auto-reply. */
async function pidOf(h: Awaited<ReturnType<typeof harness>>, routingKey?: string): Promise<number> {
  const r = await h.mgr.request(FP, 'resources/subscribe', { uri: 'x://1' }, { routingKey });
  return r.pid as number;
}

describe('PoolManager pins', () => {
  it('routes every request with a pinned key to one instance on a stateless pool', async () => {
    const h = await harness({ minReady: 3, maxInstances: 3, strategy: 'stateless' });
    h.launcher.autoReply = true;
    h.mgr.pin(FP, KEY);
    const first = await pidOf(h, KEY);
    const again = await Promise.all([1, 2, 3, 4].map(() => pidOf(h, KEY)));
    expect(again).toEqual([first, first, first, first]);
    // Without the key, round-robin spreads over the instances as before.
    const free = await Promise.all([1, 2, 3].map(() => pidOf(h)));
    expect(new Set(free).size).toBeGreaterThan(1);
  });

  it('keeps the pinned instance against idle reaping until the last unpin', async () => {
    const h = await harness({ idleSeconds: 30, strategy: 'stateless' });
    h.launcher.autoReply = true;
    h.mgr.pin(FP, KEY);
    h.mgr.pin(FP, KEY); // two holders
    await pidOf(h, KEY);
    await h.clock.advance(10 * 60_000);
    expect(h.mgr.processCount()).toBe(1);
    // Status says why the instance stays: one key (two holders) pinned on it.
    expect(h.mgr.status()[0]?.instances.map((i) => i.pinnedKeys)).toEqual([1]);
    h.mgr.unpin(FP, KEY);
    await h.clock.advance(10 * 60_000);
    expect(h.mgr.processCount()).toBe(1); // one holder left
    h.mgr.unpin(FP, KEY);
    expect(h.mgr.status()[0]?.instances.map((i) => i.pinnedKeys)).toEqual([0]);
    await h.clock.advance(29_999);
    expect(h.mgr.processCount()).toBe(1);
    await h.clock.advance(1);
    expect(h.mgr.processCount()).toBe(0);
    expect(h.events('instance.stop')[0]?.fields).toMatchObject({ cause: 'idle' });
  });

  it('an unpinned key on a stateless pool is routed like any request', async () => {
    const h = await harness({ minReady: 2, maxInstances: 2, strategy: 'stateless' });
    h.launcher.autoReply = true;
    const pids = await Promise.all([1, 2, 3, 4].map(() => pidOf(h, KEY)));
    expect(new Set(pids).size).toBe(2);
  });

  it('reports pin loss when the instance crashes, and the next request picks a new instance', async () => {
    const h = await harness({ idleSeconds: 30, strategy: 'stateless' });
    h.launcher.autoReply = true;
    const lost: [string, string][] = [];
    h.mgr.onPinLost((fp, key) => lost.push([fp, key]));
    h.mgr.pin(FP, KEY);
    h.mgr.pin(FP, 'other'); // never placed: not lost
    const first = await pidOf(h, KEY);
    h.launcher.sessions.find((s) => s.pid === first)!.crash();
    await settle();
    expect(lost).toEqual([[FP, KEY]]);
    const second = await pidOf(h, KEY);
    expect(second).not.toBe(first);
    expect(await pidOf(h, KEY)).toBe(second);
    // The new placement holds as well.
    await h.clock.advance(10 * 60_000);
    expect(h.mgr.processCount()).toBe(1);
  });

  it('reports pin loss when a hung instance is recycled, and when the pool is removed', async () => {
    const h = await harness({ strategy: 'stateless', callTimeoutSeconds: 1 });
    const lost: string[] = [];
    h.mgr.onPinLost((_fp, key) => lost.push(key));
    h.mgr.pin(FP, KEY);
    const call = track(h.mgr.request(FP, 'resources/subscribe', { uri: 'x://1' }, { routingKey: KEY }));
    await settle();
    must(h.launcher.sessions[0], 'h.launcher.sessions[0]').hung = true;
    await h.clock.advance(1000); // deadline missed → ping probe
    await h.clock.advance(2000); // probe unanswered → recycled
    expect(call.error?.reason).toBe('DEADLINE_EXCEEDED');
    expect(lost).toEqual([KEY]);
    h.launcher.autoReply = true;
    await pidOf(h, KEY);
    await h.mgr.reconcile(new Map());
    expect(lost).toEqual([KEY, KEY]);
    expect(() => h.mgr.pin(FP, KEY)).toThrow(McpdError);
    h.mgr.unpin(FP, KEY); // unknown pool: nothing to do
  });

  it('says nothing of pins at shutdown', async () => {
    const h = await harness({ strategy: 'stateless' });
    h.launcher.autoReply = true;
    const lost: string[] = [];
    h.mgr.onPinLost((_fp, key) => lost.push(key));
    h.mgr.pin(FP, KEY);
    await pidOf(h, KEY);
    await h.mgr.shutdown();
    expect(lost).toEqual([]);
    expect(h.launcher.live()).toHaveLength(0);
  });

  it('a pinned key waits for its instance when that one is full instead of spreading', async () => {
    const h = await harness({ minReady: 2, maxInstances: 2, maxConcurrent: 1, strategy: 'stateless' });
    h.mgr.pin(FP, KEY);
    const a = track(h.mgr.request(FP, 'm', {}, { routingKey: KEY }));
    await settle();
    const b = track(h.mgr.request(FP, 'm', {}, { routingKey: KEY }));
    await settle();
    expect(h.launcher.calls).toHaveLength(1);
    expect(h.mgr.status()[0]?.waiting).toBe(1);
    must(h.launcher.calls[0], 'h.launcher.calls[0]').resolve({});
    await settle();
    expect(a.done).toBe(true);
    expect(h.launcher.calls).toHaveLength(2);
    expect(h.launcher.calls[1]?.session).toBe(must(h.launcher.calls[0], 'call 0').session);
    must(h.launcher.calls[1], 'h.launcher.calls[1]').resolve({});
    await settle();
    expect(b.done && !b.error).toBe(true);
  });
});
