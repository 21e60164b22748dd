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
    const [method, params] = livenessRequest(session);
    session.request(method, params, { timeoutMs: PROBE_TIMEOUT_MS }).then(
      () => {
        inst.probing = false;
        if (why === 'deadline')
          scope.log('info', 'instance.probe_ok', `server ${scope.spec.name} missed a deadline but answers ${method}; kept`, inst);
        else scope.log('debug', 'instance.alive', `server ${scope.spec.name} answered the periodic ${method}`, inst);
      },
      (err: Error) => {
        inst.probing = false;
        // Not hung: it answered, with "sign in again"; recycling it cannot help and `mcpdctl auth` does.
        if (needsSignIn(err)) return this.signInLost(err as McpdError);
        this.health.noteError(`hung: ${err.message}`);
        const after = why === 'deadline' ? 'after a missed deadline' : 'to the periodic ping (pingIntervalSeconds)';
        scope.log('warning', 'instance.hung', `server ${scope.spec.name} does not answer ${method} ${after}; recycling it`, inst, {
          cause: 'hung',
          probe: why,
        });
        // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
        void this.stop(inst, 'hung');
      },
    );
  }

  /**
   * A call on `inst` ended without the server's answer, and its cancel is written: ping. The server reads
   * its input in order, so its answer comes after it read the cancel, and from then on the cancelled call
   * cannot ask (MCP's cancellation rule; the SDK refuses a cancelled handler's requests): the instance's
   * questions go to their callers again (decision 58). No answer within the call timeout: hung, recycled,
   * and status says so. `confirmed` runs once the instance may take such a call again.
   */
  confirmCancel(inst: Instance, confirmed: () => void): void {
    const session = inst.session;
    const { scope } = this;
    if (!session || !inst.usable) return;
    if (!speaksPing(session)) {
      // A 2026-07-28 server asks its client only inside the call's own result (MRTR), never as a request of
      // its own that could be mistaken for the cancelled call's; and that era has no ping to ask it with.
      inst.cancelConfirmed();
      confirmed();
      return;
    }
    const timeoutMs = Math.max(PROBE_TIMEOUT_MS, scope.spec.callTimeoutSeconds * 1000);
    session.request('ping', {}, { timeoutMs }).then(
      () => {
        inst.cancelConfirmed();
        confirmed();
        scope.log(
          'debug',
          'instance.cancel_confirmed',
          `server ${scope.spec.name} read the cancel of an ended call; its requests are routed again`,
          inst,
        );
      },
      (err: Error) => {
        if (needsSignIn(err)) {
          inst.cancelConfirmed();
          confirmed();
          return this.signInLost(err as McpdError);
        }
        if (!inst.usable) return;
        this.health.noteError(
          `a call was cancelled and the server did not answer ping after it (${err.message}): it is replaced, since its requests could not be told from the cancelled call's`,
        );
        scope.log('warning', 'instance.hung', `server ${scope.spec.name} does not answer ping after a cancelled call; recycling it`, inst, {
          cause: 'hung',
          probe: 'cancel',
        });
        // Fire-and-forget: stop() never rejects: a failed close is logged as instance.stop_error.
        void this.stop(inst, 'hung');
      },
    );
  }
}

/** Every 2025 version has `ping`; 2026-07-28 (and later: versions are dates) does not. Unknown: assume it does. */
function speaksPing(session: { readonly protocolVersion?: string }): boolean {
  return session.protocolVersion === undefined || session.protocolVersion < '2026-07-28';
}

/**
 * What asks a server "are you there" in its era: `ping` for 2025 servers; 2026-07-28 has no ping, and every
 * server of that era answers `server/discover` (it is how a client meets one), so that is the probe.
 */
function livenessRequest(session: { readonly protocolVersion?: string }): [string, Record<string, never>] {
  return speaksPing(session) ? ['ping', {}] : ['server/discover', {}];
}
