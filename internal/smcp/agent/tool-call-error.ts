import { SMCP_CODES } from '../../contract/smcp/error-codes.js';
import type { CallToolResult } from '../../contract/smcp/types.js';
import type { JsonObject } from '../../shared/json.js';

/** A failed tool call as the protocol's tool-call flow returns it: an `isError` result carrying the ErrorPayload. */
export function toolCallError(e: { code: number; message: string; details?: Record<string, unknown> }, reqId: string): CallToolResult {
  const text =
    e.code === SMCP_CODES.timeout ? `Tool call timeout, req_id=${reqId}: ${e.message}` : `Tool call failed: [${e.code}] ${e.message}`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { a2c_error: JSON.parse(JSON.stringify(e)) as JsonObject },
  };
}
