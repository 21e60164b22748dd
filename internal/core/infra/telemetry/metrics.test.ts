import { describe, expect, it } from 'vitest';
import type { PoolStatus } from '../../../contract/model/runtime.js';
import { isLoopback, parseAddress, startMetricsServer } from './http-server.js';
import { coreEntry } from './log-tap.js';
import { Metrics } from './metrics.js';
import { parsePromText, sampleValue } from '../../../../test/support/prom-text.js';

const pool = (name: string, states: string[], extra: Partial<PoolStatus> = {}): PoolStatus =>
  ({
    fingerprint: `fp-${name}`,
    references: [`p/${name}`],
    spec: { name },
    instances: states.map((state, i) => ({ id: `${name}-${i}`, state })),
    waiting: 2,
    suspended: false,
    restarts: 0,
    generation: 1,
    ...extra,
  }) as unknown as PoolStatus;

function metrics(): Metrics {
  const m = new Metrics((fp) => fp.replace(/^fp-/, ''));
  m.attach({
    pools: () => [pool('echo', ['ready', 'busy', 'busy']), pool('dead', [], { suspended: true })],
    callers: () => ({ callers: 2, sessions: 3 }),
    watchers: () => 4,
    logReaders: () => 1,
  });
  return m;
}

describe('Metrics', () => {
  it('exposes strictly valid text with call histograms, derived start/stop counters and scrape-time gauges', async () => {
    const m = metrics();
    m.observeCall('fp-echo', 'ok', 0.02);
    m.observeCall('fp-echo', 'ok', 3);
    m.observeCall('fp-echo', 'saturated', 10);
    m.observeRequest('fp-echo', 'resources/read', 'ok', 0.004);
    m.observeRequest('fp-echo', 'prompts/get', 'timeout', 30);
    m.observeLog(coreEntry('info', 'instance.start', { fingerprint: 'fp-echo', cause: 'call' }));
    m.observeLog(coreEntry('info', 'instance.stop', { fingerprint: 'fp-echo', cause: 'idle' }));
    m.observeLog(coreEntry('warning', 'instance.crash', { fingerprint: 'fp-echo', cause: 'crash' }));
    m.observeLog(coreEntry('info', 'instance.stop', { cause: 'idle' })); // no server: ignored
    m.observeLog(coreEntry('debug', 'pool.wait', { fingerprint: 'fp-echo', seconds: 0.7, outcome: 'served' }));
    m.observeLog(coreEntry('debug', 'pool.wait', { fingerprint: 'fp-echo', seconds: 5, outcome: 'saturated' }));
    m.logsDropped(5);
    const f = parsePromText(await m.text());
    expect(sampleValue(f, 'mcpd_call_duration_seconds_count', { server: 'echo', outcome: 'ok' })).toBe(2);
    expect(sampleValue(f, 'mcpd_call_duration_seconds_bucket', { server: 'echo', outcome: 'ok', le: '0.025' })).toBe(1);
    expect(sampleValue(f, 'mcpd_call_duration_seconds_count', { outcome: 'saturated' })).toBe(1);
    expect(sampleValue(f, 'mcpd_pool_saturated_total', { server: 'echo' })).toBe(1);
    expect(
      sampleValue(f, 'mcpd_request_duration_seconds_bucket', { server: 'echo', method: 'resources/read', outcome: 'ok', le: '0.005' }),
    ).toBe(1);
    expect(sampleValue(f, 'mcpd_request_duration_seconds_count', { method: 'prompts/get', outcome: 'timeout' })).toBe(1);
    expect(sampleValue(f, 'mcpd_pool_wait_seconds_bucket', { server: 'echo', outcome: 'served', le: '1' })).toBe(1);
    expect(sampleValue(f, 'mcpd_pool_wait_seconds_sum', { server: 'echo', outcome: 'saturated' })).toBe(5);
    expect(sampleValue(f, 'mcpd_instance_starts_total', { server: 'echo', cause: 'call' })).toBe(1);
    expect(sampleValue(f, 'mcpd_instance_stops_total', { server: 'echo' })).toBe(2);
    expect(sampleValue(f, 'mcpd_instance_stops_total', { cause: 'crash' })).toBe(1);
    expect(sampleValue(f, 'mcpd_pool_instances', { server: 'echo', state: 'busy' })).toBe(2);
    expect(sampleValue(f, 'mcpd_pool_waiting_calls', { server: 'echo' })).toBe(2);
    expect(sampleValue(f, 'mcpd_pool_suspended', { server: 'dead' })).toBe(1);
    expect(sampleValue(f, 'mcpd_active_callers')).toBe(2);
    expect(sampleValue(f, 'mcpd_caller_sessions')).toBe(3);
    expect(sampleValue(f, 'mcpd_watch_subscribers')).toBe(4);
    expect(sampleValue(f, 'mcpd_log_entries_dropped_total')).toBe(5);
    expect(f.get('mcpd_call_duration_seconds')?.type).toBe('histogram');
    // No caller, tool or instance labels anywhere (method is the MCP method mcpd sent: a closed set).
    for (const fam of f.values())
      for (const s of fam.samples)
        expect(Object.keys(s.labels).filter((k) => !['server', 'pool', 'outcome', 'cause', 'state', 'method', 'le'].includes(k))).toEqual(
          [],
        );
  });

  it('keeps two specs that share a server name apart with the bounded pool label', async () => {
    const m = new Metrics(() => 'docs');
    m.attach({ pools: () => [], callers: () => ({ callers: 0, sessions: 0 }), watchers: () => 0, logReaders: () => 0 });
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    m.observeCall(a, 'ok', 0.1);
    m.observeCall(b, 'ok', 0.2);
    m.observeCall(b, 'ok', 0.3);
    const f = parsePromText(await m.text());
    expect(sampleValue(f, 'mcpd_call_duration_seconds_count', { server: 'docs', pool: 'aaaaaaaaaaaa', outcome: 'ok' })).toBe(1);
    expect(sampleValue(f, 'mcpd_call_duration_seconds_count', { server: 'docs', pool: 'bbbbbbbbbbbb', outcome: 'ok' })).toBe(2);
  });

  it('the strict parser rejects what a scraper would', () => {
    expect(() => parsePromText('x 1\n')).toThrow(/no preceding # TYPE/);
    expect(() => parsePromText('# TYPE x gauge\nx{a="1} 1\n')).toThrow(/unterminated/);
    expect(() => parsePromText('# TYPE x gauge\nx one\n')).toThrow(/bad value/);
    expect(() => parsePromText('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n')).toThrow(
      /cumulative/,
    );
    expect(() => parsePromText('# TYPE x gauge\nx 1')).toThrow(/newline/);
  });
});

describe('metrics HTTP endpoint', () => {
  it('serves /metrics and /healthz on a loopback port 0 and 404s the rest', async () => {
    let code = 200;
    const srv = await startMetricsServer({
      address: '127.0.0.1:0',
      metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: '# TYPE up gauge\nup 1\n' }),
      health: () => ({ code, body: { status: code === 200 ? 'ok' : 'stopping' } }),
    });
    try {
      expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(srv.url.endsWith(':0')).toBe(false);
      const m = await fetch(`${srv.url}/metrics`);
      expect(sampleValue(parsePromText(await m.text()), 'up')).toBe(1);
      expect(await (await fetch(`${srv.url}/healthz`)).json()).toEqual({ status: 'ok' });
      code = 503;
      expect((await fetch(`${srv.url}/healthz`)).status).toBe(503);
      expect((await fetch(`${srv.url}/other`)).status).toBe(404);
      expect((await fetch(`${srv.url}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await srv.close();
    }
  });

  it('refuses a non-loopback address unless allowed, and explains a malformed one', async () => {
    const o = { metrics: async () => ({ contentType: 'text/plain', body: '' }), health: () => ({ code: 200, body: {} }) };
    await expect(startMetricsServer({ ...o, address: '0.0.0.0:0' })).rejects.toThrow(/not a loopback address.*MCPD_METRICS_ALLOW_REMOTE/);
    expect(() => parseAddress('9464')).toThrow(/not host:port/);
    expect(parseAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(isLoopback('127.0.0.2')).toBe(true);
    expect(isLoopback('10.0.0.1')).toBe(false);
  });
});
