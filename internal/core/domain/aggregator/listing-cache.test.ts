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
