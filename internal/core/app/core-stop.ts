import type { StopOutcome } from '../../contract/control/control.js';
import type { CoreLog } from './area-deps.js';
import type { CallGate } from './call-gate.js';
import type { PoolPort } from './pool-port.js';
import type { StoreState } from './store-state.js';

/** What the stop itself knows; the core adds the attached gateways. */
export type CoreStopOutcome = Omit<StopOutcome, 'gatewayPids'>;

export interface StopParts {
  calls: CallGate;
  store: StoreState;
  pools: PoolPort;
  log: CoreLog;
  publishStatus(): void;
  /** Runs the process's graceful stop (the Stop RPC asks for it); absent = only `begin` happens. */
  requestStop?: () => void;
  /** Everything that holds timers, watches or subscriptions, closed in this order before the pools stop. */
  closers: (() => void)[];
}

/**
 * Stopping the core: first refuse new calls and say so (`begin`), then let the calls in flight finish
 * within the grace period (`drain`), then close every watch and stop every server (`shutdown`).
 */
export class CoreStop {
  constructor(private readonly p: StopParts) {}

  /**
   * The first step of a graceful stop: refuse new calls and say so in the status (watchers see
   * `stopping` at once). Returns what the stop found; the caller then drains the calls.
   */
  begin(): CoreStopOutcome {
    const { p } = this;
    const graceSeconds = p.store.current.runtime.shutdownGraceSeconds;
    const started = p.calls.close(graceSeconds * 1000);
    const outcome = { inFlightCalls: p.calls.inFlight, graceSeconds, pid: process.pid, started };
    if (started) {
      p.log('info', 'core stopping: new calls are refused, calls in flight may finish', {
        inFlightCalls: outcome.inFlightCalls,
        graceSeconds,
      });
      p.publishStatus();
    }
    return outcome;
  }

  /** `begin`, then the process's own graceful stop (the Stop RPC). */
  request(): CoreStopOutcome {
    const outcome = this.begin();
    this.p.requestStop?.();
    return outcome;
  }

  /** Drains the calls in flight (after `begin`), logging those cut off by the grace period. */
  async drain(): Promise<void> {
    const { cancelled } = await this.p.calls.drain();
    if (cancelled > 0) this.p.log('warning', 'calls cancelled at the end of the shutdown grace period', { cancelled });
    this.p.publishStatus();
  }

  async shutdown(): Promise<void> {
    for (const close of this.p.closers) close();
    await this.p.pools.shutdown();
  }
}
