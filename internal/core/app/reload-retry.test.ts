import { describe, expect, it } from 'vitest';
import { McpdError } from '../../shared/errors.js';
import { PoolGoneError } from '../infra/scheduler/index.js';
import { afterReloads, RELOAD_RACE_ATTEMPTS, viaPool, type ReloadProgress } from './reload-retry.js';

/** Store applications as StoreReloads counts them: `begin` one, `end` it. */
class Applications implements ReloadProgress {
  generation = 0;
  private running = 0;
  private done: () => void = () => {};
  private pending: Promise<void> = Promise.resolve();
  get settled(): boolean {
    return this.running === 0;
  }
  applied(): Promise<void> {
    return this.pending;
  }
  begin(): void {
    this.generation++;
    this.running++;
    this.pending = new Promise((r) => (this.done = r));
  }
  end(): void {
    this.running--;
    this.done();
  }
}

describe('afterReloads', () => {
  it('resolves again after the reload a NOT_FOUND raced, and answers from the new store', async () => {
    const apps = new Applications();
    let store = 'old';
    const seen: string[] = [];
    const answer = afterReloads(apps, 'prompt "p"', async () => {
      seen.push(store);
      if (store === 'old') {
        apps.begin(); // a reload overtakes the request while it resolves
        throw new McpdError('NOT_FOUND', 'no prompt named "p"');
      }
      return store;
    });
    await Promise.resolve();
    store = 'new';
    apps.end();
    expect(await answer).toBe('new');
    expect(seen).toEqual(['old', 'new']);
  });

  it('never retries what reached a pool, nor a NOT_FOUND with no reload around it', async () => {
    const apps = new Applications();
    let n = 0;
    const fromServer = new McpdError('NOT_FOUND', 'the server said no');
    await expect(
      afterReloads(apps, 'x', () => {
        n++;
        apps.begin();
        apps.end();
        return viaPool(Promise.reject(fromServer));
      }),
    ).rejects.toBe(fromServer);
    expect(n).toBe(1);
    const unknown = new McpdError('NOT_FOUND', 'no such prompt');
    await expect(afterReloads(apps, 'x', () => Promise.reject(unknown))).rejects.toBe(unknown);
  });

  it('gives up with a clear UNAVAILABLE when reloads keep removing the pool', async () => {
    let n = 0;
    const err = await afterReloads(new Applications(), 'resource "u"', () => {
      n++;
      return Promise.reject(new PoolGoneError('abc'));
    }).catch((e: unknown) => e as McpdError);
    expect(n).toBe(RELOAD_RACE_ATTEMPTS);
    expect(err.reason).toBe('UNAVAILABLE');
    expect(err.message).toMatch(/resource "u" could not be resolved: the configuration changed \(reload\).*4 times/);
  });
});
