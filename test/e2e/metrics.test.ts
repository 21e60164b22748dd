import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parsePromText, sampleValue, type PromFamily } from '../support/prom-text.js';
import { TestWorld } from '../support/core-process.js';
import { metricsUrl } from '../support/core-metrics.js';
import { waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

async function scrape(url: string): Promise<Map<string, PromFamily>> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePromText(await res.text());
}

describe('metrics and health over loopback HTTP', () => {
  let world: TestWorld;
  let core: ChildProcess;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('echo', { callTimeoutSeconds: 3, minReady: 1 })),
      'runtime.yaml': 'metricsAddress: 127.0.0.1:0\n',
    });
    core = await world.startCore();
    await waitFor('the core to log its metrics address', () => metricsUrl(world) !== undefined);
    url = metricsUrl(world) as string;
    client = await world.gateway('default');
    // minReady: 1 — wait until the instance is up, so call deadlines measure calls, not a cold start.
    await waitFor(
      'a ready echo instance',
      async () => sampleValue(await scrape(url), 'mcpd_pool_instances', { server: 'echo', state: 'ready' }) >= 1,
    );
  });
  afterAll(async () => world.cleanup());

  it('binds a free loopback port and answers /healthz', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', pools: 1, suspended: [] });
  });

  it('moves the call histogram with calls and reports instances, starts and callers', async () => {
    const before = await scrape(url);
    const ok0 = sampleValue(before, 'mcpd_call_duration_seconds_count', { server: 'echo', outcome: 'ok' });
    const door = { face: 'session', method: 'tools/call' };
    const doorOk0 = sampleValue(before, 'mcpd_door_call_duration_seconds_count', { ...door, outcome: 'ok' });
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'echo__echo', arguments: { i } });
    // A call past the spec's deadline is counted as a timeout, not as an error.
    await expect(client.callTool({ name: 'echo__hang', arguments: {} })).rejects.toThrow(/did not answer tools\/call within \d+ ms/);
    const after = await scrape(url);
    expect(sampleValue(after, 'mcpd_call_duration_seconds_count', { server: 'echo', outcome: 'ok' })).toBe(ok0 + 3);
    expect(sampleValue(after, 'mcpd_call_duration_seconds_bucket', { server: 'echo', outcome: 'ok', le: '+Inf' })).toBe(ok0 + 3);
    expect(sampleValue(after, 'mcpd_call_duration_seconds_sum', { server: 'echo', outcome: 'ok' })).toBeGreaterThan(0);
    expect(sampleValue(after, 'mcpd_call_duration_seconds_count', { server: 'echo', outcome: 'timeout' })).toBe(1);
    expect(sampleValue(after, 'mcpd_call_duration_seconds_count', { server: 'echo', outcome: 'error' })).toBe(0);
    // The door counts the same calls by face: the gateway reached the core over the Session.
    expect(sampleValue(after, 'mcpd_door_call_duration_seconds_count', { ...door, outcome: 'ok' })).toBe(doorOk0 + 3);
    expect(sampleValue(after, 'mcpd_door_call_duration_seconds_count', { ...door, outcome: 'timeout' })).toBe(1);
    expect(sampleValue(after, 'mcpd_instance_starts_total', { server: 'echo', cause: 'min-ready' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'mcpd_pool_instances', { server: 'echo' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'mcpd_active_callers')).toBe(1);
    expect(sampleValue(after, 'mcpd_caller_sessions')).toBe(1);
    expect(after.get('mcpd_log_entries_dropped_total')?.type).toBe('counter');
  });

  it('stops serving when the core stops', async () => {
    core.kill('SIGTERM');
    await new Promise<void>((res) => (core.exitCode !== null ? res() : core.once('exit', () => res())));
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
