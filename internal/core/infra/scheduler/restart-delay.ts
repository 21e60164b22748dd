import { backoffDelayMs } from '../../../shared/backoff.js';

const BASE_MS = 500;
/** Pools that crashed together (a shared dependency went away) do not all restart in the same tick. */
const JITTER = 0.2;

/**
 * Delay before restarting a pool's warm instance: doubles with each crash still inside the
 * breaker window (so it resets by itself once the server has been stable), capped, jittered.
 */
export function restartDelayMs(recentCrashes: number, maxSeconds: number, random?: () => number): number {
  return backoffDelayMs(recentCrashes, { baseMs: BASE_MS, maxMs: maxSeconds * 1000, jitter: JITTER }, random);
}
