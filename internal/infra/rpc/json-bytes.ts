import type { JsonObject } from '../../domain/json.js';
import { McpdError } from '../../domain/errors.js';

/** Decodes a JSON-object payload from the wire; empty means `{}`. */
export function decodeObject(bytes: Uint8Array | undefined, field: string): JsonObject {
  if (!bytes || bytes.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    throw new McpdError('INVALID_ARGUMENT', `${field} is not valid JSON (${(e as Error).message}); send a JSON object`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new McpdError('INVALID_ARGUMENT', `${field} must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return value as JsonObject;
}

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value ?? null), 'utf8');
}
