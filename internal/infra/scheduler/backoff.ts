const BASE_MS = 500;

/**
 * Delay before restarting a pool's warm instance: doubles with each crash still inside the
 * breaker window (so it resets by itself once the server has been stable), capped.
 */
export function restartDelayMs(recentCrashes: number, maxSeconds: number, baseMs = BASE_MS): number {
  if (recentCrashes <= 0) return 0;
  return Math.min(maxSeconds * 1000, baseMs * 2 ** Math.min(recentCrashes - 1, 30));
}
