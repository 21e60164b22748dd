import { describe, expect, it } from 'vitest';
import type { PoolStatus } from '../../contract/model/runtime.js';
import { parsePromText, sampleValue } from '../../../test/support/prom-text.js';
import { Observability, type ObservedCore } from './log-observability.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';

function setup() {
  const lines: string[] = [];
  const current = {};
  const store = {
    current,
    specs: () => new Map([['fp1', { spec: { name: 'echo' }, references: ['default/echo'] }]]),
  } as unknown as StoreState;
  const obs = new Observability({ env: {} });
  obs.adopt(store, (level, event) => lines.push(`${level} ${event}`));
  let suspended = false;
  const inner = {
    status: (): PoolStatus[] => [
      { fingerprint: 'fp1', spec: { name: 'echo' }, instances: [], waiting: 0, suspended } as unknown as PoolStatus,
    ],
    toolCall: (_fp: string, _n: string, _a: object, _o: object, done: { result(r: object): void }) => {
      done.result({ content: [] });
      return { cancel: () => {} };
    },
  } as unknown as PoolPort;
  const pools = obs.meter(inner);
  const core: ObservedCore = {
    status: () => ({
      configDir: '',
      configIssues: [],
      pools: [],
      callers: [{ caller: 'a', profile: 'default', sessions: 2 }],
      stopping: false,
      inFlightCalls: 0,
    }),
    watchSubscribers: () => 0,
    logs: { subscriberCount: 0 },
  };
  obs.attach(core);
  return { obs, pools, lines, suspend: () => (suspended = true) };
}

describe('Observability', () => {
  it('tees the log to stderr and the bus, and derives metrics from both log events and timed calls', async () => {
    const { obs, pools, lines } = setup();
    obs.log('debug', 'instance.start', { fingerprint: 'fp1', cause: 'call' });
    await pools.callTool('fp1', 'echo', {}, {});
    expect(lines).toEqual(['debug instance.start']);
    expect(obs.bus.recent((e) => e.record).map((r) => r.event)).toEqual(['instance.start']);
    const f = parsePromText(await obs.metrics.text());
    expect(sampleValue(f, 'mcpd_instance_starts_total', { server: 'echo', cause: 'call' })).toBe(1);
    expect(sampleValue(f, 'mcpd_call_duration_seconds_count', { server: 'echo', outcome: 'ok' })).toBe(1);
    expect(sampleValue(f, 'mcpd_active_callers')).toBe(1);
    expect(sampleValue(f, 'mcpd_caller_sessions')).toBe(2);
  });

  it('reports health ok, degraded with suspended servers, 503 while stopping; closes the port', async () => {
    const { obs, suspend } = setup();
    const url = (await obs.serve('127.0.0.1:0')) as string;
    expect((await (await fetch(`${url}/healthz`)).json()) as unknown).toEqual({ status: 'ok', pools: 1, suspended: [] });
    suspend();
    const degraded = await fetch(`${url}/healthz`);
    expect(degraded.status).toBe(200);
    expect(await degraded.json()).toEqual({ status: 'degraded', pools: 1, suspended: ['echo'] });
    obs.shuttingDown();
    const stopping = await fetch(`${url}/healthz`);
    expect(stopping.status).toBe(503);
    expect(((await stopping.json()) as { status: string }).status).toBe('stopping');
    await obs.close();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('keeps running without metrics when the address is empty, bad or refused, and says why', async () => {
    const { obs, lines } = setup();
    expect(await obs.serve('')).toBeUndefined();
    expect(await obs.serve('0.0.0.0:0')).toBeUndefined();
    expect(await obs.serve('nonsense')).toBeUndefined();
    expect(lines).toEqual(['error metrics.unavailable', 'error metrics.unavailable']);
  });
});
