import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpdError } from '../../domain/errors.js';

/**
 * Core failures become JSON-RPC errors the client can act on: bad input and unknown names are
 * InvalidParams (as MCP prescribes for unknown tools), a downstream JSON-RPC error keeps its code,
 * runtime failures are InternalError with the reason in the message and in `data`.
 */
export function toMcpError(e: unknown): McpError {
  if (e instanceof McpError) return e;
  if (!(e instanceof McpdError)) return new McpError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e));
  const data = { reason: e.reason, ...(e.details.data !== undefined ? { details: e.details.data } : {}) };
  if (e.details.specCode !== undefined && e.details.specCode !== 0) return new McpError(e.details.specCode, e.message, data);
  switch (e.reason) {
    case 'INVALID_ARGUMENT':
    case 'NOT_FOUND':
    case 'CURSOR_EXPIRED':
      return new McpError(ErrorCode.InvalidParams, e.message, data);
    case 'DEADLINE_EXCEEDED':
      return new McpError(ErrorCode.RequestTimeout, e.message, data);
    default:
      return new McpError(ErrorCode.InternalError, `${e.reason}: ${e.message}`, data);
  }
}
