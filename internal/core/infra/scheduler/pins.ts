interface Pin {
  /** pin() calls not yet matched by unpin(): the pin lives while this is above zero. */
  holders: number;
  /** Where requests with this key go; undefined until a request places it (or after the instance ended). */
  instanceId?: string;
}

/**
 * Pinned routing keys of one pool, for any strategy: requests carrying a pinned key all go to the
 * instance the first of them landed on, and that instance is not idle-reaped while it holds a pin.
 * When the instance ends the key is unplaced, so the next request with it picks an instance afresh.
 */
export class Pins {
  private readonly map = new Map<string, Pin>();

  add(key: string): void {
    const p = this.map.get(key);
    if (p) p.holders++;
    else this.map.set(key, { holders: 1 });
  }

  /** Drops one holder; returns the instance the key was placed on when the pin is gone for good. */
  remove(key: string): { gone: boolean; instanceId?: string } {
    const p = this.map.get(key);
    if (!p) return { gone: false };
    if (--p.holders > 0) return { gone: false };
    this.map.delete(key);
    return { gone: true, instanceId: p.instanceId };
  }

  has(key: string | undefined): key is string {
    return key !== undefined && this.map.has(key);
  }

  instanceOf(key: string): string | undefined {
    return this.map.get(key)?.instanceId;
  }

  place(key: string, instanceId: string): void {
    const p = this.map.get(key);
    if (p && p.instanceId === undefined) p.instanceId = instanceId;
  }

  /** The instance holds at least one pin (so it must not be reaped for idleness). */
  holds(instanceId: string): boolean {
    for (const p of this.map.values()) if (p.instanceId === instanceId) return true;
    return false;
  }

  /** How many pinned keys are placed on the instance. */
  countOn(instanceId: string): number {
    let n = 0;
    for (const p of this.map.values()) if (p.instanceId === instanceId) n++;
    return n;
  }

  /** The instance ended: unplaces its keys and returns them (their holders have lost state). */
  dropInstance(instanceId: string): string[] {
    const keys: string[] = [];
    for (const [k, p] of this.map) {
      if (p.instanceId !== instanceId) continue;
      p.instanceId = undefined;
      keys.push(k);
    }
    return keys;
  }

  clear(): void {
    this.map.clear();
  }
}
