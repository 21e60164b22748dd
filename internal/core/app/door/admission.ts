import type { CallGate } from '../call-gate.js';
import type { Interceptor } from './interceptor.js';

/**
 * The stop's gate, driven by each area method's declared `admission`. A `core` call (one that does work on
 * a server) is refused once a graceful stop began — with the same error on every face — and counted while
 * it runs, so the stop's drain waits for it; its grace period's end cancels it. `free` ones pass.
 */
export function admissionInterceptor(gate: CallGate): Interceptor {
  return {
    name: 'admission',
    enter(call, cancel) {
      if (call.admission !== 'core') return undefined;
      const token = gate.enter(cancel);
      if (token === undefined) return gate.refusal(call.method);
      return () => gate.leave(token);
    },
  };
}
