import { describe, expect, it } from 'vitest';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { CallDone, StartedCall } from '../../contract/model/downstream.js';
import type { CallOutcome } from '../infra/telemetry/metrics.js';
import { meteredPools } from './metered-pools.js';
import type { PoolPort } from './pool-port.js';

/** A pool with private state, to prove delegated methods run on the real object. */
class FakePools {
  private calls = 0;
  next: () => Promise<JsonObject> = async () => ({ content: [] });
  toolCall(_fp: string, _n: string, _a: JsonObject, _o: object, done: CallDone): StartedCall {
    this.calls++;
    this.next().then(done.result, done.error);
    return { cancel: () => {} };
  }
  async request(): Promise<JsonObject> {
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
    const methods: string[] = [];
    const inner = new FakePools();
    const pools = meteredPools(inner as unknown as PoolPort & FakePools, (fp, method, outcome, s) => {
      expect(s).toBeGreaterThanOrEqual(0);
      seen.push([fp, outcome]);
      methods.push(method);
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
    expect(new Set(methods)).toEqual(new Set(['tools/call']));
    expect(pools.count()).toBe(7);
    // Every other downstream request is timed under its own method.
    inner.next = async () => ({ contents: [] });
    expect(await pools.request('fp', 'resources/read', { uri: 'x://y' }, {})).toEqual({ contents: [] });
    expect(methods.at(-1)).toBe('resources/read');
    expect(seen.at(-1)).toEqual(['fp', 'ok']);
    expect(pools.count).toBe(pools.count); // delegated methods are bound once, not per access
    expect(pools.count()).toBe(8);
  });

  it("times callback calls by their end, a cancelled one (a stop's cutoff included) as cancelled", () => {
    const seen: CallOutcome[] = [];
    const ends: { done: CallDone }[] = [];
    const inner = {
      toolCall: (_fp: string, _n: string, _a: JsonObject, _o: object, done: CallDone): StartedCall => {
        const entry = { done };
        ends.push(entry);
        return { cancel: (err) => done.error(err) };
      },
    };
    const pools = meteredPools(inner as unknown as PoolPort, (_fp, _m, outcome) => seen.push(outcome));
    const got: string[] = [];
    const done: CallDone = { result: (r) => got.push(`result ${JSON.stringify(r)}`), error: (e) => got.push(`error ${e.message}`) };
    pools.toolCall('fp', 't', {}, {}, done);
    ends[0]!.done.result({ isError: true });
    pools.toolCall('fp', 't', {}, {}, done);
    ends[1]!.done.error(new McpdError('DEADLINE_EXCEEDED', 'late'));
    const cut = pools.toolCall('fp', 't', {}, {}, done);
    cut.cancel(new McpdError('UNAVAILABLE', 'the core is stopping'));
    expect(seen).toEqual(['error', 'timeout', 'cancelled']);
    expect(got).toEqual(['result {"isError":true}', 'error late', 'error the core is stopping']);
  });
});
