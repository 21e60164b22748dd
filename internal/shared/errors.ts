/** Where a configuration problem is: file, 1-based line, dotted field path. */
export interface ConfigIssue {
  file: string;
  line: number;
  column?: number;
  field: string;
  message: string;
  /** What the user should do about it. */
  hint?: string;
}

export function formatIssue(i: ConfigIssue): string {
  const at = `${i.file}:${i.line}${i.column ? `:${i.column}` : ''}`;
  return `${at}: ${i.field ? `${i.field}: ` : ''}${i.message}${i.hint ? ` (${i.hint})` : ''}`;
}

/**
 * Machine-readable failure reasons. Each maps to a gRPC status code in the rpc layer;
 * `specCode` carries the numeric code of the MCP/A2C specs (e.g. 4204) unchanged.
 */
export type ErrorReason =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'POOL_SATURATED'
  | 'DEADLINE_EXCEEDED'
  | 'CANCELLED'
  | 'UNAVAILABLE'
  | 'SPEC_SUSPENDED'
  | 'DOWNSTREAM_ERROR'
  | 'CURSOR_EXPIRED'
  | 'FAILED_PRECONDITION'
  | 'UNIMPLEMENTED'
  /** A policy rule (callers.yaml `policies:`) refused the call; `details.data.policyRule` names it. */
  | 'PERMISSION_DENIED'
  /** A policy rule's quota (`rate:`) is used up; `details.data` has `policyRule` and `retryAfterMs`. */
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL';

export class McpdError extends Error {
  constructor(
    readonly reason: ErrorReason,
    message: string,
    readonly details: { specCode?: number; data?: unknown } = {},
  ) {
    super(message);
    this.name = 'McpdError';
  }
}

export function isMcpdError(e: unknown): e is McpdError {
  return e instanceof McpdError;
}
