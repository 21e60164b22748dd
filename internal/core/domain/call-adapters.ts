import type { JsonObject } from '../../shared/json.js';

/** A completion callback for any result type (CallDone is the tool call's). */
export interface Done<T> {
  result(value: T): void;
  error(err: Error): void;
}

/** A call that reports its end to a callback; the handle cancels it. */
export interface Cancellable {
  cancel(err: Error): void;
}

/**
 * A promise-returning call seen as a callback call: its own signal, aborted by `cancel`. Where the layer
 * below has no callback entry (an HTTP session, a test fake, a use case that awaits), this is the adapter.
 */
export function viaPromise<T = JsonObject>(run: (signal: AbortSignal) => Promise<T>, done: Done<T>): Cancellable {
  const ac = new AbortController();
  let p: Promise<T>;
  try {
    p = run(ac.signal);
  } catch (e) {
    p = Promise.reject(e as Error);
  }
  p.then(
    (v) => done.result(v),
    (e: unknown) => done.error(e instanceof Error ? e : new Error(String(e))),
  );
  return { cancel: (err) => ac.abort(err) };
}

/**
 * The promise wrapper on top of a callback call: `signal`, when given, cancels it with its reason.
 * `enter` may call `done` before it returns.
 */
export function promiseOf<T = JsonObject>(enter: (done: Done<T>) => Cancellable, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (!signal) {
      enter({ result: resolve, error: reject });
      return;
    }
    let settled = false;
    const onAbort = () => call.cancel(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    const call = enter({
      result: (v) => {
        settled = true;
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      error: (e) => {
        settled = true;
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    });
    if (settled) return;
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
