import { McpdError } from '../shared/errors.js';

/**
 * The JSON-RPC and MCP codes used here (the SDK's ErrorCode values): importing them from the SDK would
 * load its protocol schemas into the stdio gateway, which serves without them.
 */
export const JsonRpcCode = {
  InvalidParams: -32602,
  MethodNotFound: -32601,
  InternalError: -32603,
  RequestTimeout: -32001,
  /** Ours, in the implementation-defined range: a policy rule refused the call, or its quota is used up. */
  PolicyRefused: -32003,
} as const;

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
 * a missed deadline is RequestTimeout, a policy's refusal is PolicyRefused (the rule in `data.details`), other runtime failures are InternalError with the reason in
 * the message and in `data`.
 */
export function toJsonRpcError(e: unknown): Error {
  if (e instanceof JsonRpcError || isCodedError(e)) return e;
  if (!(e instanceof McpdError)) return new JsonRpcError(JsonRpcCode.InternalError, e instanceof Error ? e.message : String(e));
  const data = { reason: e.reason, ...(e.details.data !== undefined ? { details: e.details.data } : {}) };
  if (e.details.specCode !== undefined && e.details.specCode !== 0) return new JsonRpcError(e.details.specCode, e.message, data);
  switch (e.reason) {
    case 'INVALID_ARGUMENT':
    case 'NOT_FOUND':
    case 'CURSOR_EXPIRED':
      return new JsonRpcError(JsonRpcCode.InvalidParams, e.message, data);
    case 'DEADLINE_EXCEEDED':
      return new JsonRpcError(JsonRpcCode.RequestTimeout, e.message, data);
    case 'PERMISSION_DENIED':
    case 'RESOURCE_EXHAUSTED':
      return new JsonRpcError(JsonRpcCode.PolicyRefused, e.message, data);
    default:
      return new JsonRpcError(JsonRpcCode.InternalError, `${e.reason}: ${e.message}`, data);
  }
}

/** An error that already is a JSON-RPC one (the SDK's McpError, a ClientRequestError …): it keeps its code. */
function isCodedError(e: unknown): e is Error {
  return e instanceof Error && !(e instanceof McpdError) && Number.isSafeInteger((e as { code?: unknown }).code);
}
