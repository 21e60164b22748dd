import type { StopCause } from '../../../contract/model/runtime.js';
import type { Instance } from './instance.js';
import type { InstanceSet } from './instance-set.js';
import type { KeyRouting } from './key-routing.js';
import type { PoolScope } from './pool-scope.js';

/**
 * Stops instances above the warm target that have been quiet for `idleSeconds` — not while a call
 * runs, a pinned key is placed on it, or a stateful caller session's binding is still alive.
 */
export class IdleReaper {
  constructor(
    private readonly scope: PoolScope,
    private readonly instances: InstanceSet,
    private readonly routing: KeyRouting,
    /** Stops the instance; never rejects (a failed close is logged as instance.stop_error). */
    private readonly stop: (inst: Instance, cause: StopCause) => Promise<void>,
  ) {}

  arm(inst: Instance, inMs = this.scope.spec.idleSeconds * 1000): void {
    this.disarm(inst);
    const { spec } = this.scope;
    if (spec.idleSeconds <= 0 || spec.strategy === 'persistent') return;
    if (!inst.usable || inst.inFlight > 0) return;
    inst.idleTimer = this.scope.deps.clock.setTimeout(() => this.check(inst), inMs);
  }

  disarm(inst: Instance): void {
    if (inst.idleTimer !== undefined) this.scope.deps.clock.clearTimeout(inst.idleTimer);
    inst.idleTimer = undefined;
  }

  private check(inst: Instance): void {
    inst.idleTimer = undefined;
    if (!inst.usable || inst.inFlight > 0) return;
    if (this.routing.holdsPin(inst)) return; // re-armed by the last unpin
    const now = this.scope.now();
    const idleMs = this.scope.spec.idleSeconds * 1000;
    const quietFor = now - inst.lastUsedAt;
    if (quietFor < idleMs) return this.arm(inst, idleMs - quietFor);
    const bound = this.routing.bindingsOf(inst, now);
    if (bound.count > 0) return this.arm(inst, bound.lastExpiry - now); // keep caller sessions' state
    if (this.instances.usableCount() <= this.scope.warmTarget) return;
    const cause: StopCause = inst.everBound ? 'ttl' : 'idle';
    // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
    void this.stop(inst, cause);
  }
}
