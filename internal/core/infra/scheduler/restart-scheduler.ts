import type { TimerHandle } from './clock.js';
import type { InstanceSet } from './instance-set.js';
import type { PoolHealth } from './pool-health.js';
import type { PoolScope } from './pool-scope.js';
import { restartDelayMs } from './restart-delay.js';

/** Brings a pool back to its warm target after a crash or stop, with a backoff that grows with recent crashes. */
export class RestartScheduler {
  private timer?: TimerHandle;

  constructor(
    private readonly scope: PoolScope,
    private readonly instances: InstanceSet,
    private readonly health: PoolHealth,
    /** Starts instances up to the warm target (cause 'restart'). */
    private readonly rewarm: () => void,
  ) {}

  schedule(): void {
    const { scope } = this;
    if (!scope.open || this.timer !== undefined) return;
    if (this.instances.liveCount() >= scope.warmTarget) return;
    const delay = restartDelayMs(this.health.recentCrashes(), scope.deps.runtime.restartBackoffMaxSeconds, scope.deps.random);
    scope.log('info', 'instance.restart_scheduled', `restarting server ${scope.spec.name} in ${delay} ms`, undefined, { delayMs: delay });
    this.timer = scope.deps.clock.setTimeout(() => {
      this.timer = undefined;
      this.rewarm();
    }, delay);
  }

  cancel(): void {
    if (this.timer !== undefined) this.scope.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
