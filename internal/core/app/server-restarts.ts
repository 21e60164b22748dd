import type { RestartedInstance, RestartedPool, RestartRequest, ServersApi } from '../../contract/control/control-areas.js';
import type { InstanceStatus, PoolStatus } from '../../contract/model/runtime.js';
import { closestNames } from '../../contract/model/did-you-mean.js';
import { McpdError } from '../../shared/errors.js';
import type { PoolPort } from './pool-port.js';

/** A fingerprint prefix shorter than status shows could name the wrong pool: a restart is no place to guess. */
const MIN_FINGERPRINT_PREFIX = 12;

/** Instances a restart replaces: those running or starting (a draining one is on its way out already). */
const RUNNING: ReadonlySet<InstanceStatus['state']> = new Set(['starting', 'ready', 'busy']);

/** A pool with one of these after a restart runs a replacement. */
const SERVING: ReadonlySet<InstanceStatus['state']> = new Set(['ready', 'busy']);

/**
 * `mcpdctl restart SERVER [--instance ID]` (the RestartServer RPC): the dashboard's per-instance restart,
 * applied to each running instance of the server's pools one after the other, so a pool with several
 * keeps serving from the others while one drains. Each instance drains its calls in flight (the
 * server's `drainTimeoutSeconds`) and stops; the pool starts a replacement when it would otherwise run
 * fewer than its warm target (at least one). Answers once those replacements are ready or failed.
 */
export class ServerRestarts implements ServersApi {
  constructor(private readonly pools: PoolPort) {}

  async restart(_caller: string, req: RestartRequest): Promise<RestartedPool[]> {
    const { restartInstance, settlePool } = this.pools;
    if (!restartInstance || !settlePool) throw new McpdError('UNAVAILABLE', "this core's pools cannot restart an instance");
    const pools = this.poolsNamed(req.server);
    const targets = req.instance === undefined ? pools : [this.poolWithInstance(pools, req.server, req.instance)];
    const done: RestartedPool[] = [];
    for (const pool of targets) {
      const before = new Set(pool.instances.map((i) => i.id));
      const chosen = pool.instances.filter((i) => (req.instance === undefined ? RUNNING.has(i.state) : i.id === req.instance));
      const stopped: RestartedInstance[] = [];
      for (const inst of chosen) {
        try {
          await restartInstance.call(this.pools, pool.fingerprint, inst.id);
        } catch (e) {
          // Gone meanwhile (idle, crash): there is nothing left of it to restart — unless it was the one named.
          if (req.instance !== undefined) throw e;
          continue;
        }
        stopped.push(instanceOf(inst));
      }
      if (stopped.length > 0) await settlePool.call(this.pools, pool.fingerprint);
      done.push(this.outcome(pool, before, stopped));
    }
    return done;
  }

  /** The pools a name picks: a server's name, "profile/server", or a fingerprint (a prefix of status's length at least). */
  private poolsNamed(server: string): PoolStatus[] {
    const all = this.pools.status();
    const byFingerprint = server.length >= MIN_FINGERPRINT_PREFIX && /^[0-9a-f]+$/.test(server);
    const picked = all.filter(
      (p) => (byFingerprint && p.fingerprint.startsWith(server)) || p.references.some((r) => r === server || nameOf(r) === server),
    );
    if (picked.length > 0) return picked;
    const known = [...new Set(all.flatMap((p) => p.references.map(nameOf)))].sort();
    const close = closestNames(server, known);
    throw new McpdError(
      'NOT_FOUND',
      `no server named "${server}" in the running store` +
        (close.length > 0 ? ` (did you mean ${close.map((c) => `"${c}"`).join(', ')}?)` : '') +
        `; servers: ${known.join(', ') || 'none'}`,
    );
  }

  private poolWithInstance(pools: PoolStatus[], server: string, instance: string): PoolStatus {
    const pool = pools.find((p) => p.instances.some((i) => i.id === instance));
    if (pool) return pool;
    const ids = pools.flatMap((p) => p.instances.map((i) => i.id));
    // Named as the operator knows it (the dashboard names the pool by its fingerprint).
    const names = [...new Set(pools.flatMap((p) => p.references.map(nameOf)))].join(', ') || server;
    throw new McpdError(
      'NOT_FOUND',
      `server ${names} has no instance ${instance} (it may have stopped already); ` +
        (ids.length > 0 ? `its instances: ${ids.join(', ')}` : 'it has no instance running'),
    );
  }

  /** The pool as it is now: instances it did not have before are what the restart started. */
  private outcome(was: PoolStatus, before: ReadonlySet<string>, stopped: RestartedInstance[]): RestartedPool {
    const now = this.pools.status().find((p) => p.fingerprint === was.fingerprint);
    const started = (now?.instances ?? []).filter((i) => !before.has(i.id)).map(instanceOf);
    const result: RestartedPool = { fingerprint: was.fingerprint, references: was.references, stopped, started };
    // Every start the restart made is over (settled): one still starting was begun since, by a call or the backoff.
    if (stopped.length > 0 && !(now?.instances ?? []).some((i) => SERVING.has(i.state))) {
      result.error = now?.suspendedReason ?? now?.lastError ?? (now ? 'no instance started' : 'the server was removed meanwhile');
    }
    return result;
  }
}

function nameOf(reference: string): string {
  return reference.slice(reference.indexOf('/') + 1);
}

function instanceOf(i: InstanceStatus): RestartedInstance {
  return { id: i.id, ...(i.pid !== undefined ? { pid: i.pid } : {}), state: i.state };
}
