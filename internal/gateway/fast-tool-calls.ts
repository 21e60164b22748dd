import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ProgressUpdate } from '../contract/model/downstream.js';
import type { McpdError } from '../shared/errors.js';
import type { JsonObject } from '../shared/json.js';
import type { RawCallHandlers, SessionClient } from '../contract/session/session-client.js';
import { JsonRpcCode, toJsonRpcError } from './error-map.js';
import { rawJsonOf } from '../shared/jsonrpc/raw-json.js';
import { ChurnMap } from '../shared/churn-map.js';
import type { LineRole } from './stdio-server-transport.js';

type RequestId = string | number;

export interface FastToolCallsOptions {
  /** The live Session to the core (waits for one). */
  session: () => Promise<SessionClient>;
  /** The live Session if there is one now: the common case takes no promise turn. */
  liveSession?: () => SessionClient | undefined;
  /** Writes one complete JSON-RPC line (or bytes of one) to the client: a call's progress, its answer. */
  write: (bytes: Buffer | string, role: LineRole) => void;
}

/**
 * `tools/call` from a stdio client, answered without the SDK's Protocol: the arguments go to the core
 * as JSON bytes and the core's result bytes go to the client as they are — the gateway never parses
 * or rebuilds a result (decision 17). Progress and cancellation pass through as on the SDK path;
 * everything else still goes through the SDK server. A call with a live
 * Session is sent in the turn its line is read and answered in the turn the core's frame is read
 * (SessionClient.startRaw): no promise, signal or timer per call.
 */
export class FastToolCalls {
  private readonly inflight = new ChurnMap<RequestId, ToolCall>();

  constructor(private readonly opts: FastToolCallsOptions) {}

  /** Takes the message when it is a call this lane serves, or a cancel of one; false = not ours. */
  offer(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    if ('id' in message) {
      if (message.method !== 'tools/call') return false;
      const params = (message.params ?? {}) as JsonObject;
      // The core judges every call (the Finder's tool included), a missing or malformed name too (-32602).
      this.serve(message.id, params);
      return true;
    }
    if (message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const call = id === undefined ? undefined : this.inflight.get(id);
      if (!call) return false;
      call.cancel(String((message.params as { reason?: unknown }).reason ?? 'cancelled by the client'));
      return true;
    }
    return false;
  }

  private serve(id: RequestId, params: JsonObject): void {
    const call = new ToolCall(this, id, progressTokenOf(params));
    this.inflight.set(id, call);
    const paramsJson = rawJsonOf(params) ?? JSON.stringify({ name: params.name, arguments: params.arguments ?? {} });
    const live = this.opts.liveSession?.();
    if (live) return call.start(live, paramsJson);
    this.opts.session().then(
      (s) => call.start(s, paramsJson),
      (e: unknown) => call.error(e as McpdError),
    );
  }

  /** @internal (ToolCall) */
  ended(call: ToolCall): void {
    if (this.inflight.get(call.id) === call) this.inflight.delete(call.id);
  }

  /** @internal (ToolCall) */
  write(bytes: Buffer | string, role: LineRole): void {
    this.opts.write(bytes, role);
  }
}

/** One call on the lane: its Session request, progress and cancellation. */
class ToolCall implements RawCallHandlers {
  private session?: SessionClient;
  private coreId = 0;
  private cancelled = false;

  constructor(
    private readonly lane: FastToolCalls,
    readonly id: RequestId,
    private readonly token: RequestId | undefined,
  ) {}

  start(session: SessionClient, paramsJson: string): void {
    if (this.cancelled) return; // cancelled while waiting for a Session: nothing was sent
    this.session = session;
    this.coreId = session.startRaw('tools/call', paramsJson, this);
  }

  result(resultJson: Buffer): void {
    if (this.cancelled) return; // a cancelled request gets no answer (as the SDK does)
    this.lane.ended(this);
    const answer = Buffer.concat([
      Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(this.id)},"result":`),
      resultJson.length > 0 ? resultJson : EMPTY_RESULT,
      CLOSE,
    ]);
    this.lane.write(answer, { answerTo: this.id });
  }

  error(e: McpdError): void {
    if (this.cancelled) return;
    this.lane.ended(this);
    this.lane.write(`${JSON.stringify({ jsonrpc: '2.0', id: this.id, error: errorBody(e) })}\n`, { answerTo: this.id });
  }

  progress(p: ProgressUpdate): void {
    if (this.token === undefined || this.cancelled) return;
    this.lane.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: this.token, ...p } })}\n`,
      { progressOf: this.id },
    );
  }

  cancel(reason: string): void {
    this.cancelled = true;
    this.lane.ended(this);
    if (this.session) this.session.cancelRaw(this.coreId, reason);
  }
}

const CLOSE = Buffer.from('}\n');
const EMPTY_RESULT = Buffer.from('{}');

function progressTokenOf(params: JsonObject): RequestId | undefined {
  const meta = params._meta;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The error object the SDK's Protocol would send for the same failure. */
export function errorBody(e: unknown): { code: number; message: string; data?: unknown } {
  const err = toJsonRpcError(e) as Error & { code?: unknown; data?: unknown };
  const code = typeof err.code === 'number' && Number.isSafeInteger(err.code) ? err.code : JsonRpcCode.InternalError;
  return { code, message: err.message || 'Internal error', ...(err.data !== undefined ? { data: err.data } : {}) };
}
