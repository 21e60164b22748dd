import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

const ERA2026 = join(FIXTURES, 'servers/era2026.mjs');

/** The number N of the `<server>__listing-N` prompt: how many times that server process was asked prompts/list. */
function listingOf(names: string[], server: string): number {
  const name = names.find((n) => n.startsWith(`${server}__listing-`));
  if (name === undefined) throw new Error(`no ${server}__listing-N prompt in ${names.join(', ')}`);
  return Number(name.slice(`${server}__listing-`.length));
}

/**
 * 2026-07-28 servers' caching hints through the core: a list whose `ttlMs` ran out is asked for again
 * by the next listing, one still fresh is served from the core's cache. Two era2026 fixtures whose
 * prompts/list names how many times it was asked: one says `ttlMs: 0` (stale at once), one a long ttl.
 */
describe('the core honours the ttlMs of 2026 servers lists', () => {
  let world: TestWorld;

  beforeAll(async () => {
    world = new TestWorld({});
    world.write(
      'profiles/default.yaml',
      profile(
        server('stale', [process.execPath, ERA2026], { idleSeconds: 300 }, { ERA2026_PROMPTS_TTL_MS: '0' }),
        server('fresh', [process.execPath, ERA2026], { idleSeconds: 300 }, { ERA2026_PROMPTS_TTL_MS: '3600000' }),
      ),
    );
    world.write('callers.yaml', 'callers: {}\n');
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('re-fetches an expired list on the next listing and serves a fresh one from its cache', { timeout: 120_000 }, async () => {
    const client = await world.gateway('alice');
    const names = async () => (await client.listPrompts()).prompts.map((p) => p.name);
    const first = await names();
    const second = await names();
    const third = await names();
    // ttlMs 0: every listing asked the server again, so each saw a later listing of it.
    expect(listingOf(second, 'stale')).toBeGreaterThan(listingOf(first, 'stale'));
    expect(listingOf(third, 'stale')).toBeGreaterThan(listingOf(second, 'stale'));
    // A long ttl: the one listing the core made is served until it runs out.
    expect(listingOf(second, 'fresh')).toBe(listingOf(first, 'fresh'));
    expect(listingOf(third, 'fresh')).toBe(listingOf(first, 'fresh'));
  });
});
