import type { StopCause } from '../../../contract/model/runtime.js';
import type { Instance } from './instance.js';
import type { InstanceSet } from './instance-set.js';
import { Pins } from './pins.js';
import type { PoolScope } from './pool-scope.js';
import { Bindings, pickLeastLoaded } from './routing.js';

/**
 * Where a call goes: a pinned key to its pinned instance (any strategy), a `stateful` caller session to
 * its bound instance, anything else to the least-loaded instance with a free slot, round-robin on ties.
 */
export class KeyRouting {
  private readonly bindings: Bindings;
  private readonly pins = new Pins();
  private turn = 0;

  constructor(
    private readonly scope: PoolScope,
    private readonly instances: InstanceSet,
  ) {
    this.bindings = new Bindings(scope.spec.sessionTTLSeconds * 1000);
  }

  /** The key a call routes by: only stateful pools and pinned keys keep a caller on one instance. */
  keyFor(routingKey: string | undefined): string | undefined {
    return this.scope.spec.strategy === 'stateful' || this.pins.has(routingKey) ? routingKey : undefined;
  }

  /** Where a key's requests must go: its pinned instance, else (stateful) its bound one. */
  boundInstance(key: string, now: number): Instance | undefined {
    const id = this.pins.has(key)
      ? this.pins.instanceOf(key)
      : this.scope.spec.strategy === 'stateful'
        ? this.bindings.get(key, now)
        : undefined;
    return id === undefined ? undefined : this.instances.get(id);
  }

  /** An instance with a free slot for `key` by the rules above; undefined means wait. */
  choose(key: string | undefined, maxConcurrent: number, now: number, readOnly = false): Instance | undefined {
    const callerCallsOnly = this.scope.asksClient;
    if (key !== undefined) {
      const bound = this.boundInstance(key, now);
      if (bound?.usable) return bound.hasRoom(maxConcurrent, readOnly, callerCallsOnly) ? bound : undefined; // a caller session stays on its instance
    }
    return pickLeastLoaded(this.instances.withFreeSlot(maxConcurrent, readOnly, callerCallsOnly), this.turn++);
  }

  /** A call with `key` took a slot on `inst`: a pinned key is placed there, a stateful session bound. */
  taken(inst: Instance, key: string | undefined, now: number): void {
    if (this.pins.has(key)) this.pins.place(key, inst.id);
    else if (key !== undefined && this.scope.spec.strategy === 'stateful') {
      this.bindings.bind(key, inst.id, now);
      inst.everBound = true;
    }
  }

  /** The instance ended: its bindings go, and the pins it held are unplaced so their next request goes to a live instance. */
  instanceEnded(inst: Instance, cause: StopCause): void {
    this.bindings.dropInstance(inst.id);
    const { scope } = this;
    for (const key of this.pins.dropInstance(inst.id)) {
      scope.log('info', 'pin.lost', `server ${scope.spec.name} lost the instance pinned for ${key} (cause: ${cause})`, inst, {
        key,
        cause,
      });
      scope.deps.events.pinLost(scope.fingerprint, key);
    }
  }

  pin(key: string): void {
    this.pins.add(key);
  }

  pinnedInstance(key: string): string | undefined {
    return this.pins.instanceOf(key);
  }

  /** Drops one holder; returns the instance the key was on when that was its last holder and no other pin holds it. */
  unpin(key: string): Instance | undefined {
    const { gone, instanceId } = this.pins.remove(key);
    if (!gone || instanceId === undefined) return undefined;
    const inst = this.instances.get(instanceId);
    return inst && !this.pins.holds(inst.id) ? inst : undefined;
  }

  /** A pinned key is placed on the instance (it must not be reaped for idleness). */
  holdsPin(inst: Instance): boolean {
    return this.pins.holds(inst.id);
  }

  /** Live stateful bindings of the instance, and when the last of them expires. */
  bindingsOf(inst: Instance, now: number): { count: number; lastExpiry: number } {
    return this.bindings.liveFor(inst.id, now);
  }

  /** Caller sessions bound to the instance, first bound first. */
  boundKeys(inst: Instance, now: number): string[] {
    return this.bindings.keysFor(inst.id, now);
  }

  pinnedKeys(inst: Instance): number {
    return this.pins.countOn(inst.id);
  }

  clear(): void {
    this.bindings.clear();
    this.pins.clear();
  }
}
