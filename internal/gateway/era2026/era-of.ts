import type { IncomingMessage } from 'node:http';
import { isJsonObject } from '../../shared/json.js';
import { META_PROTOCOL_VERSION, PROTOCOL_2026 } from './protocol.js';

/**
 * Whether a POST without a session is a 2026-07-28 request (the spec's per-request choice): anything
 * but a 2025-era `initialize` is. An `initialize` that names 2026-07-28 (header or `_meta`) is a
 * 2026 request too, and gets the 404 of a removed method.
 */
export function isStatelessRequest(req: IncomingMessage, body: unknown): boolean {
  if (Array.isArray(body)) return false;
  if (!isJsonObject(body) || body.method !== 'initialize') return true;
  const h = req.headers['mcp-protocol-version'];
  if ((Array.isArray(h) ? h[0] : h)?.trim() === PROTOCOL_2026) return true;
  const params = body.params;
  return isJsonObject(params) && isJsonObject(params._meta) && params._meta[META_PROTOCOL_VERSION] !== undefined;
}
