/**
 * The flat error payload of every failed `client:*` ack (smcp-protocol.md §1.5, spec v0.2+ error-handling):
 * `{code, message, details?}` — never the superseded nested `{error: {...}}` envelope.
 */
export interface ErrorPayload {
  code: number;
  message: string;
  details?: Record<string, unknown>;
}

/** The protocol's code table; the Finder codes (42xx) pass from the Computer to the Agent unchanged. */
export const SMCP_CODES = {
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  timeout: 408,
  /** Ours (mcpd-smcp): too many requests of one agent, or to one computer, are waiting for answers. */
  tooManyRequests: 429,
  internal: 500,
  toolNotFound: 4001,
  toolDisabled: 4002,
  toolExecutionFailed: 4003,
  toolTimeout: 4004,
  requiresConfirmation: 4005,
  mcpAuthRequired: 4006,
  mcpAuthFailed: 4007,
  versionMismatch: 4008,
  mcpServerNotFound: 4014,
  capabilityNotSupported: 4015,
  roomFull: 4101,
  roomNotFound: 4102,
  notInRoom: 4103,
  crossRoomAccess: 4104,
  documentNotFound: 4201,
  pageOutOfRange: 4202,
  elementNotFound: 4203,
  invalidDpeUri: 4204,
} as const;
export type SmcpCode = (typeof SMCP_CODES)[keyof typeof SMCP_CODES];

export function errorPayload(code: number, message: string, details?: Record<string, unknown>): ErrorPayload {
  return details === undefined ? { code, message } : { code, message, details };
}

/** A 400 that names the offending field (dotted path) so the sender knows what to fix. */
export function badField(field: string, message: string, extra?: Record<string, unknown>): ErrorPayload {
  return errorPayload(SMCP_CODES.badRequest, `${field}: ${message}`, { field, ...extra });
}

/** True for a flat ErrorPayload: an integer `code` and a string `message` at the top level, no `content`. */
export function isErrorPayload(v: unknown): v is ErrorPayload {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return Number.isInteger(o.code) && typeof o.message === 'string' && !('content' in o);
}

/**
 * `server:join_office` / `server:leave_office` keep the protocol's `(bool, str|null)` two-argument ack, so the
 * code cannot travel as a field; we prefix the message with it (`"[4101] …"`) and parse it back on the agent side.
 */
export function joinFailureMessage(e: ErrorPayload): string {
  return `[${e.code}] ${e.message}`;
}

export function parseJoinFailure(message: string): ErrorPayload {
  const m = /^\[(\d+)\] ([\s\S]*)$/.exec(message);
  if (!m) return { code: SMCP_CODES.badRequest, message };
  const [, code, text = ''] = m;
  return { code: Number(code), message: text };
}
