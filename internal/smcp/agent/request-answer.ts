import { errorPayload, isErrorPayload, SMCP_CODES } from '../../contract/smcp/error-codes.js';
import { SmcpError } from './smcp-error.js';

/**
 * The answer to an agent's request as the caller may use it, or the SmcpError it stands for: the Server's
 * own error, no answer, or an answer to another request.
 */
export function requestAnswer<T>(event: string, answer: unknown, reqId: string, checkReqId: boolean): T {
  if (isErrorPayload(answer)) throw new SmcpError(answer);
  // python-socketio acks an event it has no handler for at once and empty: that is no answer, not a bad one.
  if (answer === undefined)
    throw new SmcpError(
      errorPayload(SMCP_CODES.timeout, `no answer to ${event}: the Server acknowledged it empty (it does not handle this event)`, {
        reason: 'empty_ack',
      }),
    );
  if (typeof answer !== 'object' || answer === null)
    throw new SmcpError(errorPayload(SMCP_CODES.internal, `${event}: expected an object answer, got ${JSON.stringify(answer)}`));
  const got = (answer as { req_id?: unknown }).req_id;
  if (checkReqId && got !== undefined && got !== reqId)
    throw new SmcpError(errorPayload(SMCP_CODES.internal, `${event}: answer is for req_id ${String(got)}, not ${reqId}`));
  return answer as T;
}
