import type { Admission } from './admission.js';
import type { InstanceSet } from './instance-set.js';
import type { PoolScope } from './pool-scope.js';

/**
 * A pool's instances asking their callers (sampling, elicitation, roots): what changes in the pool while a
 * question is open. Each method answers undefined for an instance not of this pool.
 */
export class ClientQuestions {
  constructor(
    private readonly scope: PoolScope,
    private readonly instances: InstanceSet,
    private readonly admission: Admission,
  ) {}

  /**
   * The server asked a client from `instanceId`. The first time, the pool serves one call per instance from
   * then on (PoolScope.asksClient); the instance waits on its client until the returned function is called,
   * and meanwhile admission may start another for other callers (decision 66).
   */
  asked(instanceId: string): (() => void) | undefined {
    const inst = this.instances.get(instanceId);
    if (!inst) return undefined;
    const { scope } = this;
    if (!scope.asksClient) {
      scope.asksClient = true;
      scope.log(
        'info',
        'pool.asks_client',
        `server ${scope.spec.name} asks its client (sampling, elicitation or roots): each call now gets an instance of its own`,
        inst,
      );
      scope.deps.events.metadataChanged?.(scope.fingerprint);
    }
    const answered = inst.asked();
    this.admission.pump();
    scope.changed();
    return () => {
      answered();
      this.admission.pump();
      scope.changed();
    };
  }

  /**
   * A call on the instance waits for its caller's answer to the server's question: read-only calls may use its
   * slot until the returned function runs (decision 64).
   */
  lendSlot(instanceId: string): (() => void) | undefined {
    const inst = this.instances.get(instanceId);
    if (!inst) return undefined;
    const back = this.admission.lend(inst);
    return () => {
      back();
      this.scope.changed();
    };
  }
}
