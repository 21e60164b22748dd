import { isMcpdError } from '../../../shared/errors.js';
import type { DoorOutcome } from '../../infra/telemetry/metrics.js';
import type { CallEnd, Interceptor } from './interceptor.js';

export type DoorCallObserver = (face: string, method: string, outcome: DoorOutcome, seconds: number) => void;

/**
 * Every call through the door counted and timed by face, method and outcome — one place for every face,
 * where the pools' metrics (`mcpd_call_duration_seconds`) see only what reached a server.
 */
export function metricsInterceptor(observe: DoorCallObserver): Interceptor {
  return {
    name: 'metrics',
    enter(call) {
      return (end) => observe(call.face, call.method, outcomeOf(end), end.durationMs / 1000);
    },
  };
}

function outcomeOf(end: CallEnd): DoorOutcome {
  if (end.refused) return 'refused';
  const e = end.error;
  if (e === undefined) return end.isError ? 'error' : 'ok';
  if (isMcpdError(e) && e.reason === 'CANCELLED') return 'cancelled';
  if (isMcpdError(e) && e.reason === 'DEADLINE_EXCEEDED') return 'timeout';
  return 'error';
}
