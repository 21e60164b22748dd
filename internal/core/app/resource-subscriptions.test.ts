import { describe, expect, it } from 'vitest';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { PoolPort } from './pool-port.js';
import { renewDelayMs, ResourceSubscriptions, subscriptionRoutingKey, type SubscriptionOptions } from './resource-subscriptions.js';
import { must } from '../../shared/must.js';

type Note = (fp: string, instance: string, method: string, params: JsonObject) => void;

/** A PoolPort with just what the hub uses: requests (recorded), notifications, reference-counted pins. */
function fakePools(fail?: (method: string) => Error | undefined) {
  const requests: [string, string][] = [];
  const pins = new Map<string, number>();
  const notes: Note[] = [];
  const lostCbs: ((fp: string, key: string) => void)[] = [];
  const pools = {
    request: async (_fp: string, method: string, params: JsonObject, opts: { routingKey?: string }) => {
      requests.push([method, String(params.uri)]);
      expect(opts.routingKey).toBe(subscriptionRoutingKey(String(params.uri)));
      const e = fail?.(method);
      if (e) throw e;
      return {};
    },
    onNotification: (cb: Note) => void notes.push(cb),
    pin: (fp: string, key: string) => {
      if (fp === 'unknown') throw new McpdError('NOT_FOUND', 'no pool');
      pins.set(`${fp} ${key}`, (pins.get(`${fp} ${key}`) ?? 0) + 1);
    },
    unpin: (fp: string, key: string) => {
      const n = (pins.get(`${fp} ${key}`) ?? 0) - 1;
      if (n <= 0) pins.delete(`${fp} ${key}`);
      else pins.set(`${fp} ${key}`, n);
    },
    onPinLost: (cb: (fp: string, key: string) => void) => void lostCbs.push(cb),
  } as unknown as PoolPort;
  return {
    pools,
    requests,
    pins,
    notify: (fp: string, params: JsonObject) => notes.forEach((cb) => cb(fp, 'i1', 'notifications/resources/updated', params)),
    lose: (fp: string, uri: string) => lostCbs.forEach((cb) => cb(fp, subscriptionRoutingKey(uri))),
  };
}

const quiet = () => {};
const count = (requests: [string, string][], method: string) => requests.filter(([m]) => m === method).length;

/** Backoff waits the test releases one by one, recording how long each would have been. */
function manualSleep() {
  const waits: { ms: number; go: () => void }[] = [];
  const sleep: SubscriptionOptions['sleep'] = (ms, signal) =>
    new Promise<void>((resolve) => {
      waits.push({ ms, go: resolve });
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  return { waits, sleep };
}

describe('ResourceSubscriptions', () => {
  it('subscribes downstream once per URI, fans updates out, and unsubscribes when the last one leaves', async () => {
    const { pools, requests, notify, pins } = fakePools();
    const subs = new ResourceSubscriptions(pools, quiet);
    const a = new AbortController();
    const b = new AbortController();
    const [sa, sb] = await Promise.all([subs.add('fp', 'srv', 'x://1', a.signal), subs.add('fp', 'srv', 'x://1', b.signal)]);
    expect(requests).toEqual([['resources/subscribe', 'x://1']]);
    expect([...pins.entries()]).toEqual([[`fp ${subscriptionRoutingKey('x://1')}`, 1]]);
    expect(subs.list()).toEqual([{ uri: 'x://1', server: 'srv', subscribers: 2 }]);
    notify('fp', { uri: 'x://1' });
    notify('other-fp', { uri: 'x://1' });
    expect((await sa.next()).value).toEqual({ uri: 'x://1' });
    expect((await sb.next()).value).toEqual({ uri: 'x://1' });
    a.abort();
    expect(requests).toHaveLength(1);
    await sb.return?.();
    await expect.poll(() => requests.length).toBe(2);
    expect(requests[1]).toEqual(['resources/unsubscribe', 'x://1']);
    await expect.poll(() => pins.size).toBe(0); // unpinned after the unsubscribe
    expect(subs.list()).toEqual([]);
    expect((await sa.next()).done).toBe(true);
  });

  it('passes a downstream refusal to every waiting subscriber, keeps nothing and unpins', async () => {
    const { pools, requests, pins } = fakePools((m) =>
      m === 'resources/subscribe' ? new McpdError('DOWNSTREAM_ERROR', 'no', { specCode: 4201 }) : undefined,
    );
    const subs = new ResourceSubscriptions(pools, quiet);
    const results = await Promise.allSettled([
      subs.add('fp', 's', 'x://2', new AbortController().signal),
      subs.add('fp', 's', 'x://2', new AbortController().signal),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(((results[0] as PromiseRejectedResult).reason as McpdError).details.specCode).toBe(4201);
    expect(subs.list()).toEqual([]);
    expect(requests).toEqual([['resources/subscribe', 'x://2']]);
    expect(pins.size).toBe(0);
  });

  it('refuses a subscription on an unknown pool without keeping anything', async () => {
    const { pools, requests } = fakePools();
    const subs = new ResourceSubscriptions(pools, quiet);
    await expect(subs.add('unknown', 's', 'x://9', new AbortController().signal)).rejects.toThrow(/no pool/);
    expect(subs.list()).toEqual([]);
    expect(requests).toEqual([]);
  });

  it('delivers newest-wins to a slow subscriber', async () => {
    const { pools, notify } = fakePools();
    const subs = new ResourceSubscriptions(pools, quiet);
    const s = await subs.add('fp', 's', 'x://3', new AbortController().signal);
    notify('fp', { uri: 'x://3', n: 1 });
    notify('fp', { uri: 'x://3', n: 2 });
    expect((await s.next()).value).toEqual({ uri: 'x://3', n: 2 });
    await s.return?.();
  });

  it('subscribes again when the pinned instance is lost, and keeps delivering', async () => {
    const { pools, requests, lose, notify } = fakePools();
    const subs = new ResourceSubscriptions(pools, quiet);
    const s = await subs.add('fp', 's', 'x://4', new AbortController().signal);
    lose('fp', 'x://4');
    lose('fp', 'x://other'); // not ours: ignored
    await expect.poll(() => count(requests, 'resources/subscribe')).toBe(2);
    notify('fp', { uri: 'x://4' });
    expect((await s.next()).value).toEqual({ uri: 'x://4' });
    await s.return?.();
    await expect.poll(() => count(requests, 'resources/unsubscribe')).toBe(1);
  });

  it('backs off while the pool fails, one attempt per wait, and stops when the last holder leaves', async () => {
    let failing = true;
    const { pools, requests, lose, pins } = fakePools((m) =>
      failing && m === 'resources/subscribe' ? new McpdError('SPEC_SUSPENDED', 'suspended') : undefined,
    );
    failing = false;
    const { waits, sleep } = manualSleep();
    const subs = new ResourceSubscriptions(pools, quiet, { sleep, renewDelayMs: (a) => renewDelayMs(a, () => 0) });
    const ac = new AbortController();
    await subs.add('fp', 's', 'x://5', ac.signal);
    failing = true;
    lose('fp', 'x://5');
    for (let i = 0; i < 4; i++) {
      await expect.poll(() => waits.length).toBe(i + 1);
      expect(count(requests, 'resources/subscribe')).toBe(1 + i); // nothing sent before the wait ends
      must(waits[i], `wait ${i}`).go();
      await expect.poll(() => count(requests, 'resources/subscribe')).toBe(2 + i);
    }
    await expect.poll(() => waits.length).toBe(5);
    expect(waits.map((w) => w.ms)).toEqual([0, 1000, 2000, 4000, 8000]);
    ac.abort(); // the last holder leaves during a backoff wait
    await expect.poll(() => pins.size).toBe(0);
    expect(count(requests, 'resources/subscribe')).toBe(5);
    expect(count(requests, 'resources/unsubscribe')).toBe(0); // no instance holds it: nothing to undo
    expect(subs.list()).toEqual([]);
  });

  it('ends the subscription when its pool was removed', async () => {
    let gone = false;
    const { pools, lose } = fakePools((m) =>
      gone && m === 'resources/subscribe' ? new McpdError('NOT_FOUND', 'no server pool') : undefined,
    );
    const subs = new ResourceSubscriptions(pools, quiet);
    const s = await subs.add('fp', 's', 'x://6', new AbortController().signal);
    gone = true;
    lose('fp', 'x://6');
    expect((await s.next()).done).toBe(true);
    expect(subs.list()).toEqual([]);
  });

  it('the backoff grows to a cap', () => {
    expect([0, 1, 2, 3, 6, 20].map((a) => renewDelayMs(a, () => 0))).toEqual([0, 1000, 2000, 4000, 30_000, 30_000]);
  });
});
