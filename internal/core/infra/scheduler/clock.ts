import { cappedTimeout } from '../../../shared/timer-limit.js';

/** Time source and timers, injectable so scheduling is deterministic under test. */
export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = cappedTimeout(fn, ms);
    t.unref(); // scheduling timers never keep the core alive on their own
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};
