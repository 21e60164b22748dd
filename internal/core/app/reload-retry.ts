import { McpdError } from '../../shared/errors.js';
import { PoolGoneError } from '../infra/scheduler/index.js';

/** Attempts of a request whose pool a reload removed meanwhile (each after that reload is applied). */
export const RELOAD_RACE_ATTEMPTS = 4;

/** What a request needs to know of reloads to tell "raced a reload" from "no such name" (StoreReloads). */
export interface ReloadProgress {
  /** How many store applications have begun. */
  readonly generation: number;
  /** No application is under way (the indexes name no pool a reload removed). */
  readonly settled: boolean;
  /** Settles when the application under way, and every earlier one, has ended. */
  applied(): Promise<void>;
}

/** Errors of requests that reached a pool: never retried as "raced a reload" (the server may have run them). */
const reachedPool = new WeakSet<object>();

/** Marks an error of a request that was handed to a pool (anything but "the pool is gone"); returns it. */
export function markDispatched(e: unknown): unknown {
  if (typeof e === 'object' && e !== null && !(e instanceof PoolGoneError)) reachedPool.add(e);
  return e;
}

/** A request handed to a pool: its errors are the server's (or the pool's), never "raced a reload". */
export function viaPool<T>(request: Promise<T>): Promise<T> {
  return request.catch((e: unknown) => Promise.reject(markDispatched(e)));
}

/**
 * The rule every request that resolves a name (tool, prompt) or URI against the running store follows
 * when a reload overtakes it: its pool is gone, or the name is briefly unknown while the new spec is
 * listed — nothing reached a server either way. Such a request waits for the reload to be applied and
 * resolves again, a few times at most while edits keep coming, so it is answered against the
 * configuration after the reload.
 *
 * Runs `attempt` (told whether it is the last). `what` names the request in the error given when
 * reloads kept overtaking it ("tool \"x\""). An attempt must pass errors of whatever reached a pool
 * through `markDispatched` (or `viaPool`). Without `progress` (no reloads tracked) it attempts once.
 */
export async function afterReloads<T>(
  progress: ReloadProgress | undefined,
  what: string,
  attempt: (last: boolean) => Promise<T>,
): Promise<T> {
  if (!progress) return attempt(true);
  for (let n = 1; ; n++) {
    const last = n >= RELOAD_RACE_ATTEMPTS;
    const generation = progress.generation;
    // A request that starts while a reload is being applied resolves against the index of the old
    // store, whose pools that reload already removed: it raced the reload as much as one overtaken by it.
    const settled = progress.settled;
    try {
      return await attempt(last);
    } catch (e) {
      const raced =
        e instanceof PoolGoneError ||
        (e instanceof McpdError && e.reason === 'NOT_FOUND' && !reachedPool.has(e) && (!settled || progress.generation !== generation));
      if (!raced) throw e;
      if (last) throw reloadRaceError(what, n, e);
      await progress.applied();
    }
  }
}

/**
 * Reloads kept replacing the spec of the server while the request resolved it: nothing reached a
 * server, and it is the configuration changing (not the caller's arguments) that is to blame.
 */
function reloadRaceError(what: string, attempts: number, e: unknown): McpdError {
  const why = e instanceof Error ? e.message : String(e);
  return new McpdError(
    'UNAVAILABLE',
    `${what} could not be resolved: the configuration changed (reload) while the request resolved it, ${attempts} times in a row; ` +
      `nothing was sent to a server. Retry once the edits settle (last error: ${why})`,
  );
}
