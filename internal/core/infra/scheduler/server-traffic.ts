import type { JsonObject } from '../../../shared/json.js';
import type { InstanceSet } from './instance-set.js';
import type { KeyRouting } from './key-routing.js';
import type { PoolScope } from './pool-scope.js';

/** Traffic the other way round: server→client requests traced to their caller, client notifications fanned out. */
export class ServerTraffic {
  constructor(
    private readonly scope: PoolScope,
    private readonly instances: InstanceSet,
    private readonly routing: KeyRouting,
  ) {}

  /**
   * Routing keys (caller sessions) a server→client request from `instanceId` may belong to: those with
   * a call in flight there (oldest call first); with none in flight, those bound to it (stateful pools).
   * The caller of the request decides what to do when there is more than one (decision 20: refuse).
   */
  callersOf(instanceId: string): string[] | undefined {
    const inst = this.instances.get(instanceId);
    if (!inst) return undefined;
    const keys = inst.keysInFlight();
    return keys.length > 0 ? keys : this.routing.boundKeys(inst, this.scope.now());
  }

  /** Sends a client notification to every running instance; returns how many got it. */
  notifyInstances(method: string, params: JsonObject): number {
    const { scope } = this;
    let n = 0;
    for (const inst of this.instances.values()) {
      const session = inst.session;
      if (!inst.usable || !session?.sendNotification) continue;
      n++;
      session
        .sendNotification(method, params)
        .catch((err: Error) =>
          scope.log('warning', 'instance.notify_failed', `sending ${method} to server ${scope.spec.name} failed: ${err.message}`, inst),
        );
    }
    return n;
  }
}
