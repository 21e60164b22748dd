import { isMcpdError } from '../domain/errors.js';
import type { JsonObject } from '../domain/json.js';
import type { CallOutcome } from '../infra/telemetry/metrics.js';
import type { PoolPort } from './pool-port.js';

export type CallObserver = (fingerprint: string, outcome: CallOutcome, seconds: number) => void;

/**
 * The pools with tool calls timed: the core stays unaware of metrics. A Proxy rather than a class that
 * re-declares every PoolPort method, so methods added to the port later pass through untouched.
 */
export function meteredPools<T extends PoolPort>(inner: T, observe: CallObserver): T {
  const callTool: PoolPort['callTool'] = async (fingerprint, name, args, opts) => {
    const t0 = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - t0) / 1e9;
    let result: JsonObject;
    try {
      result = await inner.callTool(fingerprint, name, args, opts);
    } catch (e) {
      safeObserve(observe, fingerprint, outcomeOf(e, opts.signal), seconds());
      throw e;
    }
    safeObserve(observe, fingerprint, result.isError === true ? 'error' : 'ok', seconds());
    return result;
  };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'callTool') return callTool;
      const v: unknown = Reflect.get(target, prop, receiver);
      // Methods run on the real object: its private state must not be read through the proxy.
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

export function outcomeOf(e: unknown, signal?: AbortSignal): CallOutcome {
  if (isMcpdError(e)) {
    if (e.reason === 'POOL_SATURATED') return 'saturated';
    if (e.reason === 'DEADLINE_EXCEEDED') return 'timeout';
    if (e.reason === 'CANCELLED') return 'cancelled';
  }
  return signal?.aborted ? 'cancelled' : 'error';
}

function safeObserve(observe: CallObserver, fp: string, outcome: CallOutcome, seconds: number): void {
  try {
    observe(fp, outcome, seconds);
  } catch {
    // metrics must never fail a call
  }
}
