import { McpdError } from '../../../shared/errors.js';
import type { ServerSpec } from '../../../contract/model/spec.js';

export function suspendedError(spec: ServerSpec, reason: string): McpdError {
  return new McpdError(
    'SPEC_SUSPENDED',
    `server ${spec.name} is suspended: ${reason}. Fix the server or edit its spec, then Reload (or resume the pool) to try again`,
  );
}

export function saturatedError(spec: ServerSpec, instances: number, cap: number, waiting: number, waitedMs: number): McpdError {
  return new McpdError(
    'POOL_SATURATED',
    `pool for server ${spec.name} is saturated: ${instances} of maxInstances=${cap} instance(s) each at ` +
      `maxConcurrent=${spec.maxConcurrent}; ${waiting} call(s) waiting; gave up after ${Math.round(waitedMs)} ms. ` +
      'Retry later or raise maxInstances/maxConcurrent',
  );
}

export function notReadyError(spec: ServerSpec, waitedMs: number): McpdError {
  return new McpdError(
    'DEADLINE_EXCEEDED',
    `server ${spec.name} did not become ready within the call deadline (${Math.round(waitedMs)} ms)`,
  );
}

export function removedError(spec: ServerSpec, why: string): McpdError {
  return new McpdError('UNAVAILABLE', `server ${spec.name} is no longer available: ${why}`);
}

export function cancelledWaitError(spec: ServerSpec): McpdError {
  return new McpdError('CANCELLED', `call to server ${spec.name} was cancelled while waiting for a free instance`);
}

/** The pool of a fingerprint does not exist (any more): a reload removed its spec, or it never loaded. */
export class PoolGoneError extends McpdError {
  constructor(readonly fingerprint: string) {
    super('NOT_FOUND', `no server pool with fingerprint ${fingerprint}: its spec was removed or never loaded`);
  }
}
