import { describe, expect, it } from 'vitest';
import { McpdError } from '../domain/errors.js';
import { PoolGoneError } from '../infra/scheduler/index.js';
import { afterReloads, ReloadRetry, RELOAD_RACE_ATTEMPTS, viaPool } from './reload-retry.js';

describe('ReloadRetry', () => {
  it('resolves again after the reload a NOT_FOUND raced, and answers from the new store', async () => {
    const r = new ReloadRetry();
    let store = 'old';
    let release!: () => void;
    const applying = r.apply(() => new Promise<void>((res) => (release = res)).then(() => void (store = 'new')));
    const seen: string[] = [];
    const answer = r.run('prompt "p"', async () => {
      seen.push(store);
      if (store === 'old') throw new McpdError('NOT_FOUND', 'no prompt named "p"');
      return store;
    });
    release();
    await applying;
    expect(await answer).toBe('new');
    expect(seen).toEqual(['old', 'new']);
  });

  it('never retries what reached a pool, nor a NOT_FOUND with no reload around it', async () => {
    const r = new ReloadRetry();
    let n = 0;
    const fromServer = new McpdError('NOT_FOUND', 'the server said no');
    await expect(
      r.run('x', () => {
        n++;
        return viaPool(Promise.reject(fromServer));
      }),
    ).rejects.toBe(fromServer);
    expect(n).toBe(1);
    const unknown = new McpdError('NOT_FOUND', 'no such prompt');
    await expect(afterReloads(r, 'x', () => Promise.reject(unknown))).rejects.toBe(unknown);
  });

  it('gives up with a clear UNAVAILABLE when reloads keep removing the pool', async () => {
    const r = new ReloadRetry();
    let n = 0;
    const err = await r
      .run('resource "u"', () => {
        n++;
        return Promise.reject(new PoolGoneError('abc'));
      })
      .catch((e: unknown) => e as McpdError);
    expect(n).toBe(RELOAD_RACE_ATTEMPTS);
    expect(err.reason).toBe('UNAVAILABLE');
    expect(err.message).toMatch(/resource "u" could not be resolved: the configuration changed \(reload\).*4 times/);
  });
});
