import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpdError } from '../shared/errors.js';

/**
 * A JSON-RPC error for the SDK's server to send. Unlike McpError it keeps the message as given: the
 * client side prefixes "MCP error <code>:" itself, and doing it here too would say it twice.
 */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * Core failures become JSON-RPC errors the client can act on: bad input and unknown names are
 * InvalidParams (as MCP prescribes for unknown tools), a downstream JSON-RPC error keeps its code,
 * a missed deadline is RequestTimeout, other runtime failures are InternalError with the reason in
 * the message and in `data`.
 */
export function toJsonRpcError(e: unknown): Error {
  if (e instanceof McpError || e instanceof JsonRpcError) return e;
  if (!(e instanceof McpdError)) return new JsonRpcError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e));
  const data = { reason: e.reason, ...(e.details.data !== undefined ? { details: e.details.data } : {}) };
  if (e.details.specCode !== undefined && e.details.specCode !== 0) return new JsonRpcError(e.details.specCode, e.message, data);
  switch (e.reason) {
    case 'INVALID_ARGUMENT':
    case 'NOT_FOUND':
    case 'CURSOR_EXPIRED':
      return new JsonRpcError(ErrorCode.InvalidParams, e.message, data);
    case 'DEADLINE_EXCEEDED':
      return new JsonRpcError(ErrorCode.RequestTimeout, e.message, data);
    default:
      return new JsonRpcError(ErrorCode.InternalError, `${e.reason}: ${e.message}`, data);
  }
}
