import { describe, expect, it } from 'vitest';
import { McpdError } from '../domain/errors.js';
import type { JsonObject } from '../domain/json.js';
import type { PoolPort } from './pool-port.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';

function fakePools(fail?: (method: string) => Error | undefined) {
  const requests: [string, string][] = [];
  const pools = {
    request: async (_fp: string, method: string, params: JsonObject) => {
      requests.push([method, String(params.uri)]);
      const e = fail?.(method);
      if (e) throw e;
      return {};
    },
  } as unknown as PoolPort;
  return { pools, requests };
}

const quiet = () => {};

describe('ResourceSubscriptions', () => {
  it('subscribes downstream once per URI, fans updates out, and unsubscribes when the last one leaves', async () => {
    const { pools, requests } = fakePools();
    const subs = new ResourceSubscriptions(pools, quiet);
    const a = new AbortController();
    const b = new AbortController();
    const [sa, sb] = await Promise.all([subs.add('fp', 'srv', 'x://1', a.signal), subs.add('fp', 'srv', 'x://1', b.signal)]);
    expect(requests).toEqual([['resources/subscribe', 'x://1']]);
    expect(subs.list()).toEqual([{ uri: 'x://1', server: 'srv', subscribers: 2 }]);
    subs.updated('fp', { uri: 'x://1' });
    subs.updated('other-fp', { uri: 'x://1' });
    expect((await sa.next()).value).toEqual({ uri: 'x://1' });
    expect((await sb.next()).value).toEqual({ uri: 'x://1' });
    a.abort();
    expect(requests).toHaveLength(1);
    await sb.return?.();
    await expect.poll(() => requests.length).toBe(2);
    expect(requests[1]).toEqual(['resources/unsubscribe', 'x://1']);
    expect(subs.list()).toEqual([]);
    expect((await sa.next()).done).toBe(true);
  });

  it('passes a downstream refusal to every waiting subscriber and keeps nothing', async () => {
    const { pools, requests } = fakePools((m) => (m === 'resources/subscribe' ? new McpdError('DOWNSTREAM_ERROR', 'no', { specCode: 4201 }) : undefined));
    const subs = new ResourceSubscriptions(pools, quiet);
    const results = await Promise.allSettled([subs.add('fp', 's', 'x://2', new AbortController().signal), subs.add('fp', 's', 'x://2', new AbortController().signal)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(((results[0] as PromiseRejectedResult).reason as McpdError).details.specCode).toBe(4201);
    expect(subs.list()).toEqual([]);
    expect(requests).toEqual([['resources/subscribe', 'x://2']]);
  });

  it('delivers latest-wins to a slow subscriber', async () => {
    const { pools } = fakePools();
    const subs = new ResourceSubscriptions(pools, quiet);
    const s = await subs.add('fp', 's', 'x://3', new AbortController().signal);
    subs.updated('fp', { uri: 'x://3', n: 1 });
    subs.updated('fp', { uri: 'x://3', n: 2 });
    expect((await s.next()).value).toEqual({ uri: 'x://3', n: 2 });
    await s.return?.();
  });
});
