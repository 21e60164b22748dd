import { describe, expect, it } from 'vitest';
import { ListingCache } from './listing-cache.js';

class Gone extends Error {}

describe('ListingCache failures', () => {
  it("records and logs a server's failure, but not an error the owner says is no failure (a removed pool)", async () => {
    const logged: string[] = [];
    const cache = new ListingCache<string[]>({
      what: 'prompts',
      fetch: (fp) => Promise.reject(fp === 'gone' ? new Gone('no server pool') : new Error('server crashed')),
      settled: () => {},
      log: (msg) => logged.push(msg),
      notAFailure: (e) => e instanceof Gone,
    });
    await cache.ensure(['gone', 'broken']);
    expect(cache.failure('gone')).toBeUndefined();
    expect(cache.failure('broken')).toBe('server crashed');
    expect(logged).toHaveLength(1);
  });
});

describe('ListingCache ttl', () => {
  it('a listing whose ttl ran out is loaded again by a listing that refreshes, served meanwhile; one without a ttl is kept', async () => {
    let now = 1_000;
    const fetched: string[] = [];
    const cache = new ListingCache<string>({
      what: 'prompts',
      fetch: (fp) => {
        fetched.push(fp);
        return Promise.resolve({ listing: `${fp}#${fetched.length}`, ttlMs: fp === 'modern' ? 500 : undefined });
      },
      settled: () => {},
      log: () => {},
      now: () => now,
    });
    await cache.ensure(['modern', 'legacy']);
    expect(fetched).toEqual(['modern', 'legacy']);
    now += 499;
    await Promise.all(cache.loads(['modern', 'legacy'], { refreshStale: true }).values());
    expect(fetched).toHaveLength(2);
    now += 1;
    // Not refreshing (routing a read, the tools page's channels): the stale listing still serves.
    expect(cache.loads(['modern'], {}).size).toBe(0);
    const again = cache.loads(['modern', 'legacy'], { refreshStale: true });
    expect([...again.keys()]).toEqual(['modern']);
    expect(cache.get('modern')).toBe('modern#1');
    await Promise.all(again.values());
    expect(cache.get('modern')).toBe('modern#3');
    expect(cache.get('legacy')).toBe('legacy#2');
  });
});
