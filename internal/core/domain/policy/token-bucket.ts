/**
 * A token bucket: `capacity` tokens, refilled evenly over `perMs` (a `rate: "10/minute"` holds 10 and
 * gains one every 6 s). Time comes from the caller, so tests step a clock instead of sleeping.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly capacity: number,
    readonly perMs: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.at = now;
  }

  /** Takes one token: 0 when taken, else the ms until one is there. */
  take(now: number): number {
    this.refill(now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - this.tokens) * (this.perMs / this.capacity));
  }

  /** Whole tokens left at `now`. */
  remaining(now: number): number {
    this.refill(now);
    return Math.floor(this.tokens);
  }

  /** Full again: nothing to remember about it. */
  full(now: number): boolean {
    return this.remaining(now) >= this.capacity;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) * this.capacity) / this.perMs);
    this.at = now;
  }
}
