/** The contract's fixed error-code set (desktop-bridge-contract v2.2, section 6). */
export const DESKTOP_CODES = [
  'DESKTOP_HOST_NOT_READY',
  'DESKTOP_PERMISSION_MISSING',
  'DESKTOP_WORKSPACE_FORBIDDEN',
  'DESKTOP_CONFIRM_REQUIRED',
  'DESKTOP_ELEMENT_NOT_FOUND',
  'DESKTOP_TIMEOUT',
  'DESKTOP_ABORTED',
  'DESKTOP_INTERNAL_ERROR',
  'DESKTOP_INVALID_REQUEST',
] as const;
export type DesktopCode = (typeof DESKTOP_CODES)[number];

/** Codes a client may retry unchanged (the condition can pass on its own). */
const RETRYABLE: ReadonlySet<DesktopCode> = new Set(['DESKTOP_HOST_NOT_READY', 'DESKTOP_TIMEOUT']);

/** The wire shape of a contract error: `error.code` is the DESKTOP_* string itself. */
export interface BridgeErrorBody {
  code: DesktopCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

export class BridgeError extends Error {
  constructor(
    readonly code: DesktopCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'BridgeError';
  }

  toBody(): BridgeErrorBody {
    const body: BridgeErrorBody = { code: this.code, message: this.message, retryable: RETRYABLE.has(this.code) };
    if (this.details) body.details = this.details;
    return body;
  }
}

export const invalid = (message: string, details?: Record<string, unknown>): BridgeError =>
  new BridgeError('DESKTOP_INVALID_REQUEST', message, details);

/** Any thrown value as a contract error; unknown failures become DESKTOP_INTERNAL_ERROR with their message. */
export function toBridgeError(e: unknown): BridgeError {
  if (e instanceof BridgeError) return e;
  return new BridgeError('DESKTOP_INTERNAL_ERROR', e instanceof Error ? e.message : String(e));
}
