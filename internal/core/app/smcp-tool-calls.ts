import type { ControlApi } from '../../contract/control/control.js';
import type { ProgressUpdate } from '../../contract/model/downstream.js';
import { McpdError } from '../../shared/errors.js';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import { SMCP_CODES } from '../../contract/smcp/error-codes.js';
import type { ToolCallReq } from '../../contract/smcp/types.js';

/** Progress kept per call: enough to show how it went, bounded against a chatty server. */
const MAX_PROGRESS = 100;

/**
 * How much earlier than the Server (and the agent) the core gives up on a call, at most half the timeout:
 * the 4004 result still has to travel back, across Redis when the agent sits on another node, and a
 * tenth of a 1 s timeout was not enough on a busy machine.
 */
const DEADLINE_MARGIN_MS = 1000;

const CANCELLED = Symbol('cancelled by the agent');

/** A2C's tool error codes (error-handling.md) for a failed call. */
function toolErrorCode(e: unknown): number {
  if (e instanceof McpdError && e.reason === 'NOT_FOUND') return SMCP_CODES.toolNotFound;
  if (e instanceof McpdError && e.reason === 'DEADLINE_EXCEEDED') return SMCP_CODES.toolTimeout;
  // A policy's refusal (callers.yaml `policies:`): forbidden, or too many requests past a quota.
  if (e instanceof McpdError && e.reason === 'PERMISSION_DENIED') return SMCP_CODES.forbidden;
  if (e instanceof McpdError && e.reason === 'RESOURCE_EXHAUSTED') return SMCP_CODES.tooManyRequests;
  return SMCP_CODES.toolExecutionFailed;
}

/** A failure as CallToolResult: A2C reports tool failures in the result, not as an ErrorPayload. */
function failed(e: unknown): JsonObject {
  const message = e instanceof Error ? e.message : String(e);
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    structuredContent: {
      error: message,
      error_type: e instanceof McpdError ? e.reason : 'Error',
      code: toolErrorCode(e),
      ...policyDetails(e),
    },
  };
}

/** The rule that refused the call, and when to retry past a quota, as the agent's result carries them. */
function policyDetails(e: unknown): JsonObject {
  const d = e instanceof McpdError ? (e.details.data as { policyRule?: unknown; retryAfterMs?: unknown } | undefined) : undefined;
  if (typeof d?.policyRule !== 'string') return {};
  return { policy_rule: d.policyRule, ...(typeof d.retryAfterMs === 'number' ? { retry_after_ms: d.retryAfterMs } : {}) };
}

/**
 * `client:tool_call` through the core like any call (pools, deadline, history), and
 * `notify:tool_call_cancel`, which the reference Computer ignores: here it aborts the call, the
 * downstream server gets notifications/cancelled and the agent's ack says `a2c_cancelled`.
 */
export class SmcpToolCalls {
  private readonly inFlight = new Map<string, AbortController>();

  constructor(
    private readonly api: Pick<ControlApi, 'callTool'>,
    private readonly caller: () => string,
  ) {}

  get size(): number {
    return this.inFlight.size;
  }

  async call(req: ToolCallReq): Promise<JsonObject> {
    const key = callKey(req.agent, req.req_id);
    if (this.inFlight.has(key)) {
      return failed(new McpdError('INVALID_ARGUMENT', `req_id "${req.req_id}" of agent "${req.agent}" is already in flight`));
    }
    const ac = new AbortController();
    this.inFlight.set(key, ac);
    const progress: ProgressUpdate[] = [];
    try {
      const result = await this.api.callTool(this.caller(), req.tool_name, req.params, {
        signal: ac.signal,
        timeoutMs: deadlineMs(req.timeout),
        onProgress: (p) => {
          if (progress.length === MAX_PROGRESS) progress.shift();
          progress.push(p);
        },
      });
      return withProgress(result, progress);
    } catch (e) {
      if (ac.signal.reason === CANCELLED) return { content: [], isError: true, _meta: { a2c_cancelled: true } };
      return withProgress(failed(e), progress);
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** An unknown req_id is ignored, as the protocol says. */
  cancel(agent: string, reqId: string): boolean {
    const ac = this.inFlight.get(callKey(agent, reqId));
    ac?.abort(CANCELLED);
    return ac !== undefined;
  }

  /** The connection dropped: nobody can receive these answers, so stop the work downstream. */
  abortAll(why: string): void {
    for (const ac of this.inFlight.values()) ac.abort(new McpdError('CANCELLED', why));
  }
}

/**
 * The call's deadline inside the core: a little before the Server's own timer for the same `timeout`,
 * so the agent gets the tool's 4004 result (and the server its notifications/cancelled) rather than
 * the Server's bare 408 racing it.
 */
export function deadlineMs(timeoutSeconds: number): number {
  const ms = timeoutSeconds * 1000;
  return ms - Math.min(DEADLINE_MARGIN_MS, ms / 2);
}

function callKey(agent: string, reqId: string): string {
  return `${agent}\u0000${reqId}`;
}

/** SMCP has no progress event: the updates the server sent ride along in `_meta.a2c_progress`. */
function withProgress(result: JsonObject, progress: ProgressUpdate[]): JsonObject {
  if (progress.length === 0) return result;
  const meta = result._meta && typeof result._meta === 'object' && !Array.isArray(result._meta) ? result._meta : {};
  return { ...result, _meta: { ...meta, a2c_progress: progress as unknown as JsonValue } };
}
