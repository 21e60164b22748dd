import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../domain/json.js';
import type { SessionClient } from '../rpc/session-client.js';
import { isContextTool } from './areas/context.js';
import { toJsonRpcError } from './error-map.js';
import { rememberedJson } from '../jsonrpc/raw-json.js';

type RequestId = string | number;

export interface FastToolCallsOptions {
  /** The live Session to the core (waits for one). */
  session: () => Promise<SessionClient>;
  /** Writes one complete JSON-RPC line (or bytes of one) to the client. */
  write: (bytes: Buffer | string) => void;
}

/**
 * `tools/call` from a stdio client, answered without the SDK's Protocol: the arguments go to the core
 * as JSON bytes and the core's result bytes go to the client as they are — the gateway never parses
 * or rebuilds a result (decision 17). Progress and cancellation pass through as on the SDK path;
 * everything else (and the Finder's own tool) still goes through the SDK server.
 */
export class FastToolCalls {
  private readonly inflight = new Map<RequestId, AbortController>();

  constructor(private readonly opts: FastToolCallsOptions) {}

  /** Takes the message when it is a call this lane serves, or a cancel of one; false = not ours. */
  offer(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    if ('id' in message) {
      if (message.method !== 'tools/call') return false;
      const params = (message.params ?? {}) as JsonObject;
      if (typeof params.name === 'string' && isContextTool(params.name)) return false;
      // Everything else is the core's to judge, a missing or malformed name included (-32602).
      void this.serve(message.id, params);
      return true;
    }
    if (message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const ac = id === undefined ? undefined : this.inflight.get(id);
      if (!ac) return false;
      ac.abort(new Error(String((message.params as { reason?: unknown }).reason ?? 'cancelled by the client')));
      return true;
    }
    return false;
  }

  private async serve(id: RequestId, params: JsonObject): Promise<void> {
    const ac = new AbortController();
    this.inflight.set(id, ac);
    const token = progressTokenOf(params);
    let progressed = false;
    try {
      const session = await this.opts.session();
      const result = await session.requestRaw(
        'tools/call',
        Buffer.from(rememberedJson(params) ?? JSON.stringify({ name: params.name, arguments: params.arguments ?? {} })),
        {
          signal: ac.signal,
          onProgress:
            token === undefined
              ? undefined
              : (p) => {
                  progressed = true;
                  this.opts.write(
                    `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, ...p } })}\n`,
                  );
                },
        },
      );
      if (ac.signal.aborted) return; // a cancelled request gets no answer (as the SDK does)
      // SDK clients drop a progress notification read together with its response: answer a turn later.
      if (progressed) await new Promise((r) => setImmediate(r));
      const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
      this.opts.write(Buffer.concat([Buffer.from(head), result.length > 0 ? result : Buffer.from('{}'), CLOSE]));
    } catch (e) {
      if (ac.signal.aborted) return;
      this.opts.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: errorBody(e) })}\n`);
    } finally {
      this.inflight.delete(id);
    }
  }
}

const CLOSE = Buffer.from('}\n');

function progressTokenOf(params: JsonObject): RequestId | undefined {
  const meta = params._meta;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The error object the SDK's Protocol would send for the same failure. */
function errorBody(e: unknown): { code: number; message: string; data?: unknown } {
  const err = toJsonRpcError(e) as Error & { code?: unknown; data?: unknown };
  const code = typeof err.code === 'number' && Number.isSafeInteger(err.code) ? err.code : ErrorCode.InternalError;
  return { code, message: err.message || 'Internal error', ...(err.data !== undefined ? { data: err.data } : {}) };
}
