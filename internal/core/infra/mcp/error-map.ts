import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpdError } from '../../../shared/errors.js';
import { authFailure } from '../../../contract/oauth/sign-in-error.js';

export interface ErrorContext {
  server: string;
  method: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The caller cancelled the request (the lane's cancel, where there is no signal). */
  cancelled?: boolean;
  /** Set when the session has ended: why (e.g. "exited (code 1)"). */
  ended?: string;
}

/** Maps an SDK/transport failure of one request to the reason the caller gets. */
export function mapRequestError(err: unknown, ctx: ErrorContext): McpdError {
  if (err instanceof McpdError) return err;
  const { server, method } = ctx;
  if (ctx.cancelled || ctx.signal?.aborted) {
    return new McpdError('CANCELLED', `${method} to server ${server} was cancelled by the caller; the server was told to stop`);
  }
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) {
      return new McpdError(
        'DEADLINE_EXCEEDED',
        `server ${server} did not answer ${method} within ${ctx.timeoutMs} ms; the request was cancelled downstream`,
      );
    }
    if (err.code === ErrorCode.ConnectionClosed) return ended(server, ctx.ended);
    return new McpdError('DOWNSTREAM_ERROR', `server ${server} failed ${method}: ${err.message}`, {
      specCode: err.code,
      data: err.data,
    });
  }
  const auth = authFailure(server, err);
  if (auth) return auth;
  if (ctx.ended) return ended(server, ctx.ended);
  const e = err as Error;
  if (e?.name === 'ZodError') {
    return new McpdError('DOWNSTREAM_ERROR', `server ${server} sent a malformed result for ${method}: ${e.message}`);
  }
  return new McpdError('UNAVAILABLE', `server ${server} could not serve ${method}: ${e?.message ?? String(err)}`);
}

function ended(server: string, why: string | undefined): McpdError {
  return new McpdError('UNAVAILABLE', `server ${server} ${why ?? 'closed its connection'} during the call`);
}
