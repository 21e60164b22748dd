import { promiseOf } from '../domain/call-adapters.js';
import { isMcpdError } from '../../shared/errors.js';
import type { JsonObject } from '../../shared/json.js';
import type { CallOutcome } from '../infra/telemetry/metrics.js';
import type { PoolPort } from './pool-port.js';

/** `method` is the MCP method sent downstream: `tools/call` for tool calls, else what `request` sent. */
export type CallObserver = (fingerprint: string, method: string, outcome: CallOutcome, seconds: number) => void;

/**
 * The pools with every downstream request timed (tool calls and the rest): the core stays unaware of
 * metrics. A Proxy rather than a class that re-declares every PoolPort method, so methods added to the
 * port later pass through untouched.
 */
export function meteredPools<T extends PoolPort>(inner: T, observe: CallObserver): T {
  const request: PoolPort['request'] = (fingerprint, method, params, opts) =>
    timed(observe, fingerprint, method, opts.signal, () => inner.request(fingerprint, method, params, opts));
  // Tool calls are timed on their one path; the promise wrapper goes through it.
  const toolCall: PoolPort['toolCall'] = (fingerprint, name, args, opts, done) => {
    const t0 = performance.now();
    const seconds = () => (performance.now() - t0) / 1000;
    // A cancel (the client's, or a stop's cutoff) counts as 'cancelled'.
    let cancelled = false;
    const call = inner.toolCall(fingerprint, name, args, opts, {
      result: (r) => {
        safeObserve(observe, fingerprint, 'tools/call', r.isError === true ? 'error' : 'ok', seconds());
        done.result(r);
      },
      error: (e) => {
        safeObserve(observe, fingerprint, 'tools/call', outcomeOf(e, cancelled), seconds());
        done.error(e);
      },
    });
    return {
      cancel: (err: Error) => {
        cancelled = true;
        call.cancel(err);
      },
    };
  };
  const callTool: PoolPort['callTool'] = (fingerprint, name, args, opts) =>
    promiseOf((done) => toolCall(fingerprint, name, args, opts, done), opts.signal);
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'callTool') return callTool;
      if (prop === 'request') return request;
      if (prop === 'toolCall') return toolCall;
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      // Methods run on the real object (its private state must not be read through the proxy), bound once.
      let b = bound.get(prop);
      if (b === undefined) bound.set(prop, (b = (v as (...a: unknown[]) => unknown).bind(target)));
      return b;
    },
  });
}

async function timed(
  observe: CallObserver,
  fingerprint: string,
  method: string,
  signal: AbortSignal | undefined,
  run: () => Promise<JsonObject>,
): Promise<JsonObject> {
  const t0 = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - t0) / 1e9;
  let result: JsonObject;
  try {
    result = await run();
  } catch (e) {
    safeObserve(observe, fingerprint, method, outcomeOf(e, signal?.aborted === true), seconds());
    throw e;
  }
  safeObserve(observe, fingerprint, method, result.isError === true ? 'error' : 'ok', seconds());
  return result;
}

function outcomeOf(e: unknown, cancelled: boolean): CallOutcome {
  if (isMcpdError(e)) {
    if (e.reason === 'POOL_SATURATED') return 'saturated';
    if (e.reason === 'DEADLINE_EXCEEDED') return 'timeout';
    if (e.reason === 'CANCELLED') return 'cancelled';
  }
  return cancelled ? 'cancelled' : 'error';
}

function safeObserve(observe: CallObserver, fp: string, method: string, outcome: CallOutcome, seconds: number): void {
  try {
    observe(fp, method, outcome, seconds);
  } catch {
    // metrics must never fail a call
  }
}
