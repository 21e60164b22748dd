/** Crash-loop breaker: more than `threshold` crashes within `windowMs` trips it. */
export class CrashBreaker {
  private crashes: number[] = [];

  constructor(
    private readonly threshold: number,
    private readonly windowMs: number,
  ) {}

  record(now: number): void {
    this.crashes.push(now);
    this.prune(now);
  }

  recent(now: number): number {
    this.prune(now);
    return this.crashes.length;
  }

  tripped(now: number): boolean {
    return this.recent(now) > this.threshold;
  }

  reset(): void {
    this.crashes = [];
  }

  private prune(now: number): void {
    const from = now - this.windowMs;
    this.crashes = this.crashes.filter((t) => t > from);
  }
}
