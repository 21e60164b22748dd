import { tierUpSooner } from '../../../shared/jit-tiering.js';
import type { Interceptor } from './interceptor.js';

/** Tool calls the core serves before it has V8 optimize its per-call code sooner. */
const TIER_UP_AFTER_CALLS = 100;

/**
 * V8's sooner tier-up (decision 83) once the core has served 100 tool calls, on any face. Set
 * at once, it cost a core that serves a short session (a few listings, 90 calls) 70–80 ms more CPU, spent
 * optimizing code it barely runs; a core that keeps serving calls is warm by about 1,500 of them all the same.
 */
export function tieringInterceptor(after = TIER_UP_AFTER_CALLS, tierUp: () => void = tierUpSooner): Interceptor {
  let calls = 0;
  return {
    name: 'tiering',
    enter(call) {
      if (call.method === 'tools/call' && ++calls === after) tierUp();
      return undefined;
    },
  };
}
