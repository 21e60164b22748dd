import { needsSignIn } from '../../../contract/model/sign-in.js';
import type { StopCause } from '../../../contract/model/runtime.js';
import type { McpdError } from '../../../shared/errors.js';
import type { TimerHandle } from './clock.js';
import type { Instance } from './instance.js';
import type { InstanceSet } from './instance-set.js';
import type { PoolHealth } from './pool-health.js';
import type { PoolScope } from './pool-scope.js';
import { PROBE_TIMEOUT_MS } from './types.js';

/**
 * Hung detection: after a missed deadline, and every `pingIntervalSeconds` between calls, an
 * instance is pinged; one that does not answer within PROBE_TIMEOUT_MS is recycled.
 */
export class Liveness {
  private pingTimer?: TimerHandle;

  constructor(
    private readonly scope: PoolScope,
    private readonly instances: InstanceSet,
    private readonly health: PoolHealth,
    /** Stops the instance; never rejects (a failed close is logged as instance.stop_error). */
    private readonly stop: (inst: Instance, cause: StopCause) => Promise<void>,
    /** A ping refused for want of sign-in (the token was revoked meanwhile): the session itself is fine. */
    private readonly signInLost: (err: McpdError) => void,
  ) {}

  /** Liveness between calls (runtime `pingIntervalSeconds`): every running instance is pinged. */
  armPing(): void {
    const { scope } = this;
    const seconds = scope.deps.runtime.pingIntervalSeconds;
    if (!(seconds > 0) || scope.closed) return;
    this.pingTimer = scope.deps.clock.setTimeout(() => {
      this.pingTimer = undefined;
      if (scope.closed) return;
      for (const inst of this.instances.values()) if (inst.state === 'ready' || inst.state === 'busy') this.probe(inst, 'interval');
      this.armPing();
    }, seconds * 1000);
  }

  stopPings(): void {
    if (this.pingTimer !== undefined) this.scope.deps.clock.clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
  }

  /** After a missed deadline, or periodically: ping; no answer within 2 s means hung, so recycle the instance. */
  probe(inst: Instance, why: 'deadline' | 'interval' = 'deadline'): void {
    const session = inst.session;
    if (!session || inst.probing || !inst.usable) return;
    const { scope } = this;
    inst.probing = true;
    session.request('ping', {}, { timeoutMs: PROBE_TIMEOUT_MS }).then(
      () => {
        inst.probing = false;
        if (why === 'deadline')
          scope.log('info', 'instance.probe_ok', `server ${scope.spec.name} missed a deadline but answers ping; kept`, inst);
      },
      (err: Error) => {
        inst.probing = false;
        // Not hung: it answered, with "sign in again"; recycling it cannot help and `mcpdctl auth` does.
        if (needsSignIn(err)) return this.signInLost(err as McpdError);
        this.health.noteError(`hung: ${err.message}`);
        const after = why === 'deadline' ? 'after a missed deadline' : 'to the periodic ping (pingIntervalSeconds)';
        scope.log('warning', 'instance.hung', `server ${scope.spec.name} does not answer ping ${after}; recycling it`, inst, {
          cause: 'hung',
          probe: why,
        });
        // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
        void this.stop(inst, 'hung');
      },
    );
  }
}
