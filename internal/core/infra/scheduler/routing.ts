/** Least-loaded choice with round-robin among equals, so ties spread instead of piling on the first. */
export function pickLeastLoaded<T extends { inFlight: number }>(candidates: readonly T[], turn: number): T | undefined {
  if (candidates.length === 0) return undefined;
  const min = Math.min(...candidates.map((c) => c.inFlight));
  const ties = candidates.filter((c) => c.inFlight === min);
  return ties[turn % ties.length];
}

interface Binding {
  instanceId: string;
  expiresAt: number;
}

/** `stateful` strategy: routing key (caller session) → instance, with a TTL refreshed on use. */
export class Bindings {
  private readonly map = new Map<string, Binding>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, now: number): string | undefined {
    const b = this.map.get(key);
    if (!b) return undefined;
    if (b.expiresAt <= now) {
      this.map.delete(key);
      return undefined;
    }
    return b.instanceId;
  }

  bind(key: string, instanceId: string, now: number): void {
    this.map.set(key, { instanceId, expiresAt: now + this.ttlMs });
  }

  dropInstance(instanceId: string): void {
    for (const [k, b] of this.map) if (b.instanceId === instanceId) this.map.delete(k);
  }

  /** Keys bound to an instance, in the order they were first bound. */
  keysFor(instanceId: string, now: number): string[] {
    const keys: string[] = [];
    for (const [k, b] of this.map) if (b.instanceId === instanceId && b.expiresAt > now) keys.push(k);
    return keys;
  }

  /** Live bindings of an instance, and when the last of them expires. */
  liveFor(instanceId: string, now: number): { count: number; lastExpiry: number } {
    let count = 0;
    let lastExpiry = 0;
    for (const [k, b] of this.map) {
      if (b.expiresAt <= now) this.map.delete(k);
      else if (b.instanceId === instanceId) {
        count++;
        lastExpiry = Math.max(lastExpiry, b.expiresAt);
      }
    }
    return { count, lastExpiry };
  }

  clear(): void {
    this.map.clear();
  }
}
