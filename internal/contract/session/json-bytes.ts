import type { JsonObject } from '../../shared/json.js';
import { McpdError } from '../../shared/errors.js';
import { withRawJson, rawJsonOf } from '../../shared/jsonrpc/raw-json.js';
import { splitObjectMember } from '../../shared/jsonrpc/split-response.js';

/**
 * Decodes a JSON-object payload from the wire; empty means `{}`. An `arguments` object (tools/call,
 * prompts/get) keeps its text, so it reaches the server without being serialised again.
 */
export function decodeObject(bytes: Uint8Array | undefined, field: string): JsonObject {
  if (!bytes || bytes.length === 0) return {};
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const split = splitObjectMember(text, 'arguments');
  if (split) {
    split.envelope.arguments = withRawJson(split.value, split.valueText);
    return split.envelope as JsonObject;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new McpdError('INVALID_ARGUMENT', `${field} is not valid JSON (${(e as Error).message}); send a JSON object`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new McpdError('INVALID_ARGUMENT', `${field} must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return value as JsonObject;
}

/** JSON bytes of `value`: the text it was parsed from when that was remembered (raw-json.ts), else serialised. */
export function encodeJson(value: unknown): Buffer {
  return Buffer.from(rawJsonOf(value) ?? JSON.stringify(value ?? null), 'utf8');
}
