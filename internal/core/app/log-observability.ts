import type { SessionTally } from '../infra/rpc/session-tally.js';
import type { ProfileStore } from '../../contract/model/profile.js';
import { secretRedactor } from '../../shared/redactor.js';
import { startMetricsServer, type MetricsHttpOptions, type MetricsHttpServer } from '../infra/telemetry/http-server.js';
import { LogBus } from '../infra/telemetry/log-bus.js';
import { coreEntry, tapLog } from '../infra/telemetry/log-tap.js';
import type { LogFn } from '../infra/telemetry/logger.js';
import { Metrics } from '../infra/telemetry/metrics.js';
import type { StatusView } from '../../contract/control/control.js';
import type { LogTelemetry } from './log-service.js';
import { meteredPools } from './metered-pools.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';

/** What the metrics read from the running core at scrape time. */
export interface ObservedCore {
  status(): StatusView;
  watchSubscribers(): number;
  readonly logs: { readonly subscriberCount: number };
}

export interface ObservabilityOptions {
  env: NodeJS.ProcessEnv;
}

/**
 * Logs and metrics for one core: the log bus every core entry is teed into, the metrics derived from
 * it and from timed calls, and the loopback HTTP endpoint. Built first in the composition root so
 * that everything after it logs onto the bus.
 */
export class Observability {
  readonly bus: LogBus;
  readonly metrics: Metrics;
  private store?: StoreState;
  private echo: LogFn = () => {};
  private http?: MetricsHttpServer;
  private pools?: PoolPort;
  private stopping = false;
  private isStopping = () => false;
  private names?: { store: ProfileStore; byFp: Map<string, string> };

  constructor(private readonly o: ObservabilityOptions) {
    this.metrics = new Metrics((fp) => this.serverOf(fp));
    this.bus = new LogBus({ onDrop: (n) => this.metrics.logsDropped(n) });
    this.bus.tap((e) => this.metrics.observeLog(e));
  }

  /** `write` (stderr JSON lines) teed onto the bus. Usable before the store is loaded (its own messages). */
  tee(write: LogFn): LogFn {
    return tapLog(write, this.bus);
  }

  /**
   * Takes the loaded store (server names for metrics) and the core's stderr logger, filtered by
   * runtime.yaml logLevel; returns the core's log function: stderr lines and the bus.
   */
  adopt(store: StoreState, stderrLog: LogFn): LogFn {
    this.store = store;
    this.echo = stderrLog;
    return this.log;
  }

  /** For the log service: the bus, and where downstream lines are echoed to stderr. */
  telemetry(): LogTelemetry {
    return { bus: this.bus, echo: (level, event, fields) => this.echo(level, event, fields) };
  }

  /** The core's log function (before `adopt`, entries only reach the bus). */
  readonly log: LogFn = (level, event, fields) => {
    this.echo(level, event, fields);
    this.bus.publish(coreEntry(level, event, fields));
  };

  /** The pools with every tool call timed into mcpd_call_duration_seconds. */
  meter<T extends PoolPort>(pools: T): T {
    this.pools = pools;
    return meteredPools(pools, (fp, method, outcome, s) =>
      method === 'tools/call' ? this.metrics.observeCall(fp, outcome, s) : this.metrics.observeRequest(fp, method, outcome, s),
    );
  }

  /** `sessions`: the control server's Session accounting, when it serves Sessions. */
  attach(core: ObservedCore, sessions?: SessionTally): void {
    // /healthz says "stopping" from the start of a graceful stop, while calls in flight drain.
    this.isStopping = () => core.status().stopping;
    this.metrics.attach({
      pools: () => this.pools?.status() ?? [],
      callers: () => {
        const cs = core.status().callers.filter((c) => c.sessions > 0);
        return { callers: cs.length, sessions: cs.reduce((n, c) => n + c.sessions, 0) };
      },
      watchers: () => core.watchSubscribers(),
      logReaders: () => core.logs.subscriberCount,
      sessionOutput: () => sessions?.totals(),
    });
  }

  /**
   * Serves /metrics and /healthz on `address` (runtime.yaml metricsAddress; empty = off). Metrics are
   * not worth refusing to run over: a bad or busy address is logged and the core carries on.
   */
  async serve(address: string, mount?: MetricsHttpOptions['mount']): Promise<string | undefined> {
    if (!address) return undefined;
    try {
      this.http = await startMetricsServer({
        address,
        allowRemote: this.o.env.MCPD_METRICS_ALLOW_REMOTE === '1',
        metrics: async () => ({ contentType: this.metrics.contentType, body: secretRedactor.text(await this.metrics.text()) }),
        health: () => this.health(),
        mount,
      });
      return this.http.url;
    } catch (e) {
      this.log('error', 'metrics.unavailable', { message: (e as Error).message });
      return undefined;
    }
  }

  /** /healthz answers 503 from here on, while the core drains. */
  shuttingDown(): void {
    this.stopping = true;
    // Open log streams end now, so the control server does not wait on them to close.
    this.bus.close();
  }

  async close(): Promise<void> {
    this.stopping = true;
    this.bus.close();
    await this.http?.close();
  }

  private health(): { code: number; body: Record<string, unknown> } {
    const pools = this.pools?.status() ?? [];
    const suspended = pools.filter((p) => p.suspended).map((p) => p.spec.name);
    const stopping = this.stopping || this.isStopping();
    const status = stopping ? 'stopping' : suspended.length > 0 ? 'degraded' : 'ok';
    return { code: stopping ? 503 : 200, body: { status, pools: pools.length, suspended } };
  }

  /** The metrics label for a spec: its server name (bounded by the configuration). */
  private serverOf(fp: string): string {
    const store = this.store?.current;
    if (store && this.names?.store !== store) {
      const byFp = new Map<string, string>();
      for (const [f, use] of (this.store as StoreState).specs()) byFp.set(f, use.spec.name);
      this.names = { store, byFp };
    }
    return this.names?.byFp.get(fp) ?? this.pools?.status().find((p) => p.fingerprint === fp)?.spec.name ?? 'unknown';
  }
}
