import { describe, expect, it } from 'vitest';
import { McpdError } from '../domain/errors.js';
import type { JsonObject } from '../domain/json.js';
import type { CallOutcome } from '../infra/telemetry/metrics.js';
import { meteredPools } from './metered-pools.js';
import type { PoolPort } from './pool-port.js';

/** A pool with private state, to prove delegated methods run on the real object. */
class FakePools {
  private calls = 0;
  next: () => Promise<JsonObject> = async () => ({ content: [] });
  async callTool(): Promise<JsonObject> {
    this.calls++;
    return this.next();
  }
  count(): number {
    return this.calls;
  }
}

describe('meteredPools', () => {
  it('times every call with its outcome and passes results, errors and other methods through', async () => {
    const seen: [string, CallOutcome][] = [];
    const inner = new FakePools();
    const pools = meteredPools(inner as unknown as PoolPort & FakePools, (fp, outcome, s) => {
      expect(s).toBeGreaterThanOrEqual(0);
      seen.push([fp, outcome]);
    });
    expect(await pools.callTool('fp', 't', {}, {})).toEqual({ content: [] });
    inner.next = async () => ({ isError: true });
    await pools.callTool('fp', 't', {}, {});
    for (const reason of ['POOL_SATURATED', 'DEADLINE_EXCEEDED', 'CANCELLED', 'DOWNSTREAM_ERROR'] as const) {
      inner.next = async () => {
        throw new McpdError(reason, 'x');
      };
      await expect(pools.callTool('fp', 't', {}, {})).rejects.toThrow('x');
    }
    const ac = new AbortController();
    ac.abort();
    inner.next = async () => {
      throw new Error('aborted somewhere below');
    };
    await expect(pools.callTool('fp', 't', {}, { signal: ac.signal })).rejects.toThrow('aborted');
    expect(seen.map(([, o]) => o)).toEqual(['ok', 'error', 'saturated', 'timeout', 'cancelled', 'error', 'cancelled']);
    expect(pools.count()).toBe(7);
  });
});
