import type { JsonObject } from '../../shared/json.js';

/** Finder error codes of the guide; they travel unchanged through every layer. */
export const DPE_DOCUMENT_NOT_FOUND = 4201;
export const DPE_INVALID_URI = 4204;

/** 4202: page out of range, 4203: element not found (raised where they occur, by number). */
export type DpeErrorCode = 4201 | 4202 | 4203 | 4204;

export class DpeError extends Error {
  constructor(
    readonly code: DpeErrorCode,
    message: string,
    readonly data?: JsonObject,
  ) {
    super(message);
    this.name = 'DpeError';
  }
}

export function isDpeError(e: unknown): e is DpeError {
  return e instanceof DpeError;
}
