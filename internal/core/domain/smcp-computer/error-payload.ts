import { McpdError } from '../../../shared/errors.js';
import { errorPayload, SMCP_CODES, type ErrorPayload } from '../../../contract/smcp/error-codes.js';

/** MCP's JSON-RPC code for an unknown resource. */
const MCP_RESOURCE_NOT_FOUND = -32002;

const GENERIC: Partial<Record<McpdError['reason'], number>> = {
  INVALID_ARGUMENT: SMCP_CODES.badRequest,
  CURSOR_EXPIRED: SMCP_CODES.badRequest,
  NOT_FOUND: SMCP_CODES.notFound,
  DEADLINE_EXCEEDED: SMCP_CODES.timeout,
};

function codeOf(e: McpdError): number {
  const spec = e.details.specCode;
  // A2C codes (4201–4204 from the Finder, …) and HTTP-like ones travel unchanged; JSON-RPC ones do not fit.
  if (spec !== undefined && spec >= 400 && spec < 5000) return spec;
  if (spec === MCP_RESOURCE_NOT_FOUND) return SMCP_CODES.notFound;
  return GENERIC[e.reason] ?? SMCP_CODES.internal;
}

/** A failed `client:*` request as the flat ErrorPayload the agent gets. */
export function toErrorPayload(e: unknown): ErrorPayload {
  if (!(e instanceof McpdError)) return errorPayload(SMCP_CODES.internal, e instanceof Error ? e.message : String(e));
  const details: Record<string, unknown> = { reason: e.reason };
  if (e.details.data !== undefined) details.data = e.details.data;
  return errorPayload(codeOf(e), e.message, details);
}
