import type { ErrorPayload } from '../../contract/smcp/error-codes.js';

/** A failed SMCP request: the flat ErrorPayload the Server or Computer acked, as an Error. */
export class SmcpError extends Error {
  readonly code: number;
  readonly details?: Record<string, unknown>;

  constructor(payload: ErrorPayload) {
    super(`[${payload.code}] ${payload.message}`);
    this.name = 'SmcpError';
    this.code = payload.code;
    this.details = payload.details;
  }
}
