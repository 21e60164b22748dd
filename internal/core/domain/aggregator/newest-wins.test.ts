import { describe, expect, it } from 'vitest';
import { LatestWins } from './newest-wins.js';

interface V {
  etag: string;
  n: number;
}
const v = (n: number): V => ({ etag: `e${n}`, n });

describe('LatestWins', () => {
  it('a consumer that did not read during many publishes gets only the newest, with no backlog behind it', async () => {
    const ch = new LatestWins<V>();
    const it = ch.subscribe();
    for (let i = 1; i <= 10_000; i++) ch.publish(v(i));
    expect((await it.next()).value).toEqual(v(10_000));
    // Had older values been queued, this read would return one of them instead of the next publish.
    const pending = it.next();
    ch.publish(v(10_001));
    expect((await pending).value).toEqual(v(10_001));
    await it.return?.();
  });

  it('a slow for-await consumer skips intermediates but always ends on the newest', async () => {
    const ch = new LatestWins<V>();
    const seen: number[] = [];
    const consumer = (async () => {
      for await (const x of ch.subscribe()) {
        seen.push(x.n);
        // Slow: yield to the producer several times before reading again.
        for (let k = 0; k < 5; k++) await Promise.resolve();
        if (x.n === 500) break;
      }
    })();
    for (let i = 1; i <= 500; i++) {
      ch.publish(v(i));
      if (i % 7 === 0) await Promise.resolve();
    }
    await consumer;
    expect(seen.at(-1)).toBe(500);
    expect(seen.length).toBeLessThan(500);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(ch.subscriberCount).toBe(0);
  });

  it('delivers the current value at once when the subscriber is stale, and waits when it is not', async () => {
    const ch = new LatestWins<V>();
    ch.publish(v(1));
    ch.publish(v(2));
    const stale = ch.subscribe((x) => x.etag === 'e1');
    expect((await stale.next()).value).toEqual(v(2));
    const fresh = ch.subscribe((x) => x.etag === 'e2');
    const next = fresh.next();
    ch.publish(v(3));
    expect((await next).value).toEqual(v(3));
    const none = ch.subscribe();
    expect((await none.next()).value).toEqual(v(3));
    expect(ch.current()).toEqual(v(3));
    ch.close();
  });

  it('waits for the first value when nothing was published yet', async () => {
    const ch = new LatestWins<V>();
    const it = ch.subscribe(() => true);
    const p = it.next();
    ch.publish(v(1));
    expect((await p).value).toEqual(v(1));
    ch.close();
  });

  it('counts subscribers; return(), abort and close() end iterators and pending reads', async () => {
    const ch = new LatestWins<V>();
    const a = ch.subscribe();
    const ac = new AbortController();
    const b = ch.subscribe(undefined, ac.signal);
    const c = ch.subscribe();
    expect(ch.subscriberCount).toBe(3);
    await a.return?.();
    expect(ch.subscriberCount).toBe(2);
    expect(await a.next()).toEqual({ done: true, value: undefined });
    const bPending = b.next();
    ac.abort();
    expect(await bPending).toEqual({ done: true, value: undefined });
    expect(ch.subscriberCount).toBe(1);
    const cPending = c.next();
    ch.close();
    expect(await cPending).toEqual({ done: true, value: undefined });
    expect(ch.subscriberCount).toBe(0);
    ch.publish(v(9));
    expect(await ch.subscribe().next()).toEqual({ done: true, value: undefined });
    expect(ch.subscriberCount).toBe(0);
  });

  it('refuses a second concurrent read instead of queueing it', async () => {
    const ch = new LatestWins<V>();
    const it = ch.subscribe();
    const first = it.next();
    await expect(it.next()).rejects.toThrow(/previous next\(\) is pending/);
    ch.publish(v(1));
    expect((await first).value).toEqual(v(1));
    ch.close();
  });
});
