import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { McpdError, type ErrorReason } from '../../shared/errors.js';
import { secretRedactor } from '../../shared/redactor.js';

const CODE_OF: Record<ErrorReason, status> = {
  INVALID_ARGUMENT: status.INVALID_ARGUMENT,
  NOT_FOUND: status.NOT_FOUND,
  POOL_SATURATED: status.RESOURCE_EXHAUSTED,
  DEADLINE_EXCEEDED: status.DEADLINE_EXCEEDED,
  CANCELLED: status.CANCELLED,
  UNAVAILABLE: status.UNAVAILABLE,
  SPEC_SUSPENDED: status.UNAVAILABLE,
  DOWNSTREAM_ERROR: status.UNKNOWN,
  CURSOR_EXPIRED: status.FAILED_PRECONDITION,
  FAILED_PRECONDITION: status.FAILED_PRECONDITION,
  UNIMPLEMENTED: status.UNIMPLEMENTED,
  PERMISSION_DENIED: status.PERMISSION_DENIED,
  RESOURCE_EXHAUSTED: status.RESOURCE_EXHAUSTED,
  INTERNAL: status.INTERNAL,
};

const REASONS = new Set(Object.keys(CODE_OF));

/** Anything thrown inside the core becomes an McpdError with a reason. */
function asMcpdError(e: unknown): McpdError {
  if (e instanceof McpdError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new McpdError('INTERNAL', msg);
}

/** The error as a client may see it: every known secret masked in its message and data. */
export function redactedError(e: unknown): McpdError {
  const err = asMcpdError(e);
  return new McpdError(err.reason, secretRedactor.text(err.message), secretRedactor.value(err.details));
}

/** gRPC status with the reason (and spec code / data) in trailing metadata. */
export function toServiceError(e: unknown): Partial<ServiceError> {
  const err = redactedError(e);
  const metadata = new Metadata();
  metadata.set('mcpd-reason', err.reason);
  if (err.details.specCode !== undefined) metadata.set('mcpd-spec-code', String(err.details.specCode));
  if (err.details.data !== undefined) metadata.set('mcpd-data-bin', Buffer.from(JSON.stringify(err.details.data)));
  return { code: CODE_OF[err.reason], details: err.message, metadata };
}

/** The inverse, for clients: a grpc-js error back to an McpdError. */
export function fromServiceError(e: ServiceError): McpdError {
  const reasonRaw = e.metadata?.get('mcpd-reason')[0];
  const reason = typeof reasonRaw === 'string' && REASONS.has(reasonRaw) ? (reasonRaw as ErrorReason) : reasonForCode(e.code);
  const spec = e.metadata?.get('mcpd-spec-code')[0];
  const dataRaw = e.metadata?.get('mcpd-data-bin')[0];
  const data = Buffer.isBuffer(dataRaw) ? safeJson(dataRaw.toString('utf8')) : undefined;
  return new McpdError(reason, e.details || e.message, {
    specCode: typeof spec === 'string' ? Number(spec) : undefined,
    data,
  });
}

function reasonForCode(code: status): ErrorReason {
  switch (code) {
    case status.INVALID_ARGUMENT:
      return 'INVALID_ARGUMENT';
    case status.NOT_FOUND:
      return 'NOT_FOUND';
    case status.RESOURCE_EXHAUSTED:
      return 'POOL_SATURATED';
    case status.DEADLINE_EXCEEDED:
      return 'DEADLINE_EXCEEDED';
    case status.CANCELLED:
      return 'CANCELLED';
    case status.UNAVAILABLE:
      return 'UNAVAILABLE';
    case status.FAILED_PRECONDITION:
      return 'FAILED_PRECONDITION';
    case status.UNIMPLEMENTED:
      return 'UNIMPLEMENTED';
    case status.PERMISSION_DENIED:
      return 'PERMISSION_DENIED';
    default:
      return 'INTERNAL';
  }
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
