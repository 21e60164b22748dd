import { McpdError } from '../errors.js';

/** The flat error ack of every `client:*` request (protocol v0.2+, error-handling.md). */
export interface SmcpErrorPayload {
  code: number;
  message: string;
  details?: Record<string, unknown>;
}

/** MCP's JSON-RPC code for an unknown resource. */
const MCP_RESOURCE_NOT_FOUND = -32002;

const GENERIC: Partial<Record<McpdError['reason'], number>> = {
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  DEADLINE_EXCEEDED: 408,
  CURSOR_EXPIRED: 400,
};

/**
 * A failure as the agent sees it. A code of the A2C specs (4201–4204 from the Finder, …) travels
 * unchanged; other failures get the generic HTTP-like code of their reason, 500 when none fits.
 */
export function errorPayload(e: unknown): SmcpErrorPayload {
  if (e instanceof McpdError) {
    const spec = e.details.specCode;
    const code =
      spec !== undefined && spec >= 400 && spec < 5000 ? spec : spec === MCP_RESOURCE_NOT_FOUND ? 404 : (GENERIC[e.reason] ?? 500);
    const details: Record<string, unknown> = { reason: e.reason };
    if (e.details.data !== undefined) details.data = e.details.data;
    return { code, message: e.message, details };
  }
  return { code: 500, message: e instanceof Error ? e.message : String(e) };
}

export function badRequest(field: string, message: string): SmcpErrorPayload {
  return { code: 400, message: `${field}: ${message}`, details: { field } };
}
