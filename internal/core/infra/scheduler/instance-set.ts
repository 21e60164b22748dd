import type { Instance } from './instance.js';

/** The instances of one pool by id, and the counts the scheduling rules are written in. */
export class InstanceSet {
  private readonly map = new Map<string, Instance>();

  get size(): number {
    return this.map.size;
  }

  get(id: string): Instance | undefined {
    return this.map.get(id);
  }

  add(inst: Instance): void {
    this.map.set(inst.id, inst);
  }

  delete(inst: Instance): void {
    this.map.delete(inst.id);
  }

  values(): IterableIterator<Instance> {
    return this.map.values();
  }

  /** A copy, for loops that stop instances (which removes them from the set). */
  list(): Instance[] {
    return [...this.map.values()];
  }

  /** Instances not on their way out (starting, ready, busy). */
  liveCount(): number {
    let n = 0;
    for (const i of this.map.values()) if (!i.stopping) n++;
    return n;
  }

  usableCount(): number {
    let n = 0;
    for (const i of this.map.values()) if (i.usable) n++;
    return n;
  }

  startingCount(): number {
    let n = 0;
    for (const i of this.map.values()) if (i.state === 'starting') n++;
    return n;
  }

  /** Some instance serves or will soon: waiting calls still have a chance. */
  anyServingOrStarting(): boolean {
    for (const i of this.map.values()) if (i.usable || i.state === 'starting') return true;
    return false;
  }

  /** Live instances each of whose calls waits on a question to its client (see Instance.waitingOnClient). */
  waitingOnClientCount(): number {
    let n = 0;
    for (const i of this.map.values()) if (!i.stopping && i.waitingOnClient) n++;
    return n;
  }

  /** Usable instances with a slot below `maxConcurrent`. */
  withFreeSlot(maxConcurrent: number, readOnly = false, callerCallsOnly = false): Instance[] {
    const free: Instance[] = [];
    for (const i of this.map.values()) if (i.usable && i.hasRoom(maxConcurrent, readOnly, callerCallsOnly)) free.push(i);
    return free;
  }

  /** Every live instance has finished starting (so more waiting will not bring a new slot). */
  noneLiveStarting(): boolean {
    for (const i of this.map.values()) if (!i.stopping && i.state === 'starting') return false;
    return true;
  }
}
