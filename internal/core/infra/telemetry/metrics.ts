import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStatus } from '../../../contract/model/runtime.js';
import type { BusEntry } from './log-bus.js';

export type CallOutcome = 'ok' | 'error' | 'timeout' | 'cancelled' | 'saturated';

/** How a call through the door ended: `refused` by an interceptor (a stopping core, a policy) before it ran. */
export type DoorOutcome = 'ok' | 'error' | 'timeout' | 'cancelled' | 'refused';

/** Read at scrape time, so gauges are never stale and nothing polls. */
export interface MetricsSources {
  pools(): PoolStatus[];
  /** Distinct callers with a live session, and the sessions. */
  callers(): { callers: number; sessions: number };
  /** Open tool/status/resource/… watch streams. */
  watchers(): number;
  logReaders(): number;
  /** The Sessions' output accounting (session-tally.ts). */
  sessionOutput?(): { unreadBytes: number; peakUnreadBytes: number; queuedRequests: number; deferredRequests: number } | undefined;
}

const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * mcpd's Prometheus metrics in a registry of its own (never prom-client's global one, so embedding or
 * tests cannot mix registries). Labels are bounded: `server` is a configured server name and `pool`
 * the first 12 hex digits of its spec fingerprint (two profiles may give different specs one name:
 * their series stay apart), `cause`, `state` and `outcome` are closed sets; no caller, tool or
 * instance labels.
 */
export class Metrics {
  readonly registry = new Registry();
  private sources?: MetricsSources;
  private readonly callSeriesCache = new Map<string, { server: string; child: Histogram.Internal<'server' | 'pool' | 'outcome'> }>();

  private readonly calls = new Histogram({
    name: 'mcpd_call_duration_seconds',
    help: 'Tool call latency through the core (pool wait included), by server and outcome.',
    labelNames: ['server', 'pool', 'outcome'],
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  private readonly requests = new Histogram({
    name: 'mcpd_request_duration_seconds',
    help: 'Downstream requests other than tool calls (resources/read, prompts/get, completion/complete …), by server, method and outcome; pool wait included.',
    labelNames: ['server', 'pool', 'method', 'outcome'],
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  private readonly starts = new Counter({
    name: 'mcpd_instance_starts_total',
    help: 'Server instances started, by cause.',
    labelNames: ['server', 'pool', 'cause'],
    registers: [this.registry],
  });
  private readonly stops = new Counter({
    name: 'mcpd_instance_stops_total',
    help: 'Server instances stopped or lost, by cause.',
    labelNames: ['server', 'pool', 'cause'],
    registers: [this.registry],
  });
  private readonly startFailures = new Counter({
    name: 'mcpd_instance_start_failures_total',
    help: 'Server starts that failed.',
    labelNames: ['server', 'pool'],
    registers: [this.registry],
  });
  private readonly saturations = new Counter({
    name: 'mcpd_pool_saturated_total',
    help: 'Calls rejected because no pool slot freed up in time.',
    labelNames: ['server', 'pool'],
    registers: [this.registry],
  });
  private readonly waits = new Histogram({
    name: 'mcpd_pool_wait_seconds',
    help: 'How long calls that found no free slot waited for one (cold starts included), by server and outcome (served, saturated, timeout, cancelled, failed). Calls that found a slot at once are not counted here.',
    labelNames: ['server', 'pool', 'outcome'],
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  private readonly policyDecisions = new Counter({
    name: 'mcpd_policy_decisions_total',
    help: 'Calls a policy rule (callers.yaml policies:) decided, by rule and effect (deny includes a used-up quota and a condition that could not be evaluated).',
    labelNames: ['rule', 'effect'],
    registers: [this.registry],
  });
  private readonly policySeries = new Map<string, Counter.Internal>();
  private readonly doorCalls = new Histogram({
    name: 'mcpd_door_call_duration_seconds',
    help: "Calls through the core's door (every face: gRPC, Session, dashboard, SMCP, context channels), by face, area method and outcome; refusals included. The _count series counts the calls.",
    labelNames: ['face', 'method', 'outcome'],
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  private readonly doorSeriesCache = new Map<string, Histogram.Internal<'face' | 'method' | 'outcome'>>();
  private readonly dropped = new Counter({
    name: 'mcpd_log_entries_dropped_total',
    help: 'Log entries a slow log reader lost (its oldest ones).',
    registers: [this.registry],
  });

  constructor(private readonly serverOf: (fingerprint: string) => string) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- prom-client calls collect() with `this` bound to the gauge
    const self = this;
    new Gauge({
      name: 'mcpd_pool_instances',
      help: 'Server instances by state.',
      labelNames: ['server', 'pool', 'state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const p of self.sources?.pools() ?? []) for (const i of p.instances) this.inc({ ...poolId(p), state: i.state });
      },
    });
    new Gauge({
      name: 'mcpd_pool_waiting_calls',
      help: 'Calls waiting for a pool slot right now.',
      labelNames: ['server', 'pool'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const p of self.sources?.pools() ?? []) this.inc(poolId(p), p.waiting);
      },
    });
    new Gauge({
      name: 'mcpd_pool_suspended',
      help: '1 when a server is suspended by the crash-loop breaker.',
      labelNames: ['server', 'pool'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const p of self.sources?.pools() ?? []) this.set(poolId(p), p.suspended ? 1 : 0);
      },
    });
    this.scalar('mcpd_active_callers', 'Distinct callers with a live gateway session.', () => self.sources?.callers().callers ?? 0);
    this.scalar('mcpd_caller_sessions', 'Live gateway sessions.', () => self.sources?.callers().sessions ?? 0);
    this.scalar('mcpd_watch_subscribers', 'Open watch streams (tools, status, …).', () => self.sources?.watchers() ?? 0);
    this.scalar('mcpd_log_subscribers', 'Open log streams.', () => self.sources?.logReaders() ?? 0);
    const sessions = () => self.sources?.sessionOutput?.();
    this.scalar(
      'mcpd_session_output_unread_bytes',
      'Bytes the live gateway Sessions were sent and have not read yet.',
      () => sessions()?.unreadBytes ?? 0,
    );
    this.scalar(
      'mcpd_session_output_peak_unread_bytes',
      'The most unread bytes one gateway Session held since the core started (its output budget is runtime.yaml sessionOutboundBytes).',
      () => sessions()?.peakUnreadBytes ?? 0,
    );
    this.scalar(
      'mcpd_session_queued_requests',
      'Requests read from gateway Sessions and not started, because their output is over its budget.',
      () => sessions()?.queuedRequests ?? 0,
    );
    new Counter({
      name: 'mcpd_session_requests_deferred_total',
      help: 'Requests a gateway Session had to wait to start, because its unread output was over (or would go over) its budget.',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(sessions()?.deferredRequests ?? 0);
      },
    });
  }

  /** Labels naming a pool: its server name and its spec (two specs may share a name). */
  private idOf(fingerprint: string): { server: string; pool: string } {
    return { server: this.serverOf(fingerprint), pool: poolLabel(fingerprint) };
  }

  attach(sources: MetricsSources): void {
    this.sources = sources;
  }

  observeCall(fingerprint: string, outcome: CallOutcome, seconds: number): void {
    const server = this.serverOf(fingerprint);
    this.callSeries(fingerprint, server, outcome).observe(seconds);
    if (outcome === 'saturated') this.saturations.inc({ server, pool: poolLabel(fingerprint) });
  }

  /**
   * The histogram series of one pool and outcome, looked up once: `observe(labels, …)` validates and
   * hashes the labels on every call, which showed in the core's profile of a 16-loop tool-call load.
   * Bounded like the series themselves (specs seen × outcomes); a renamed server gets a new series.
   */
  private callSeries(fingerprint: string, server: string, outcome: CallOutcome): Histogram.Internal<'server' | 'pool' | 'outcome'> {
    const key = `${fingerprint}\0${outcome}`;
    let series = this.callSeriesCache.get(key);
    if (series?.server !== server) {
      series = { server, child: this.calls.labels({ server, pool: poolLabel(fingerprint), outcome }) };
      this.callSeriesCache.set(key, series);
    }
    return series.child;
  }

  /** `method` comes from the core's own code (a closed set of MCP methods), never from a caller. */
  observeRequest(fingerprint: string, method: string, outcome: CallOutcome, seconds: number): void {
    const id = this.idOf(fingerprint);
    this.requests.observe({ ...id, method, outcome }, seconds);
    if (outcome === 'saturated') this.saturations.inc(id);
  }

  /** `rule` is a rule's name from the store (bounded by it), never something a caller sent. */
  policyDecision(rule: string, effect: 'allow' | 'deny'): void {
    const key = `${effect}\0${rule}`;
    let series = this.policySeries.get(key);
    if (!series) this.policySeries.set(key, (series = this.policyDecisions.labels({ rule, effect })));
    series.inc();
  }

  /** `face` and `method` are closed sets (the faces, the areas' declared methods): the series stay bounded. */
  observeDoorCall(face: string, method: string, outcome: DoorOutcome, seconds: number): void {
    const key = `${face}\0${method}\0${outcome}`;
    let series = this.doorSeriesCache.get(key);
    if (!series) this.doorSeriesCache.set(key, (series = this.doorCalls.labels({ face, method, outcome })));
    series.observe(seconds);
  }

  logsDropped(n: number): void {
    this.dropped.inc(n);
  }

  /** Starts and stops come from the scheduler's own log events, so no scheduler hook is needed. */
  observeLog(e: BusEntry): void {
    if (e.record.source !== 'core' || e.fingerprint === undefined) return;
    const cause = e.record.fields?.cause;
    switch (e.record.event) {
      case 'instance.start':
        this.starts.inc({ ...this.idOf(e.fingerprint), cause: typeof cause === 'string' ? cause : 'unknown' });
        break;
      case 'instance.stop':
        this.stops.inc({ ...this.idOf(e.fingerprint), cause: typeof cause === 'string' ? cause : 'unknown' });
        break;
      case 'instance.crash':
        this.stops.inc({ ...this.idOf(e.fingerprint), cause: 'crash' });
        break;
      case 'instance.start_failed':
        this.startFailures.inc(this.idOf(e.fingerprint));
        break;
      case 'pool.wait': {
        const { seconds, outcome } = e.record.fields ?? {};
        if (typeof seconds === 'number' && typeof outcome === 'string')
          this.waits.observe({ ...this.idOf(e.fingerprint), outcome }, seconds);
        break;
      }
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  private scalar(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}

/** The `pool` label: a spec fingerprint's first 12 hex digits, as `mcpdctl status` shows it. */
function poolLabel(fingerprint: string): string {
  return fingerprint.slice(0, 12);
}

function poolId(p: { fingerprint: string; spec: { name: string } }): { server: string; pool: string } {
  return { server: p.spec.name, pool: poolLabel(p.fingerprint) };
}
