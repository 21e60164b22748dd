import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpdError } from '../../../shared/errors.js';
import type { CallDone, RequestOptions, StartedCall } from '../../../contract/model/downstream.js';
import type { JsonObject } from '../../../shared/json.js';
import { withRawJson, rawJsonOf } from '../../../shared/jsonrpc/raw-json.js';
import type { ResultBytes } from '../../../shared/jsonrpc/split-response.js';
import { cappedTimeout } from '../../../shared/timer-limit.js';
import { ChurnMap } from '../../../shared/churn-map.js';
import { secretRedactor } from '../../../shared/redactor.js';

/** Our ids start far above the SDK Protocol's counter (which starts at 0), so the two never meet. */
const DIRECT_ID_BASE = 2 ** 40;

/** One request on the wire: answered by id, or ended by its timer, its cancel or the connection. */
class Pending implements StartedCall {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly owner: DirectRequests,
    readonly id: number,
    readonly method: string,
    readonly opts: RequestOptions,
    private readonly done: CallDone,
  ) {}

  arm(): void {
    this.timer = cappedTimeout(() => {
      this.owner.tellCancelled(this.id, `no answer within ${this.opts.timeoutMs} ms`);
      this.reject(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: this.opts.timeoutMs }));
    }, this.opts.timeoutMs);
  }

  resolve(result: JsonObject): void {
    if (this.end()) this.done.result(result);
  }

  reject(err: Error): void {
    if (this.end()) this.done.error(err);
  }

  cancel(err: Error): void {
    if (!this.owner.isPending(this)) return;
    this.owner.tellCancelled(this.id, err.message || 'cancelled');
    this.reject(err);
  }

  /** False when the request already ended: whatever ends it second is dropped. */
  private end(): boolean {
    if (!this.owner.forget(this)) return false;
    clearTimeout(this.timer);
    return true;
  }
}

/**
 * Requests to a stdio server written straight to its stdin and answered by id, beside the SDK's
 * Protocol (which keeps the handshake, notifications and server→client requests). The SDK checks every
 * incoming message against several schemas and wraps each request in timers and signal plumbing; a
 * router of calls does not need that, and this is the core's hottest path (decision 17).
 * Failures are the SDK's own error types, so callers map them as before.
 */
export class DirectRequests {
  private nextId = DIRECT_ID_BASE;
  private readonly pending = new ChurnMap<number, Pending>();
  private closedWith?: Error;

  constructor(
    private readonly serverName: string,
    private readonly writeLine: (line: string) => void,
  ) {}

  request(method: string, params: JsonObject, opts: RequestOptions): Promise<JsonObject> {
    return new Promise<JsonObject>((resolve, reject) => {
      const signal = opts.signal;
      const onAbort = () => call.cancel(signal?.reason instanceof Error ? signal.reason : new Error('cancelled'));
      const call = this.start(method, params, opts, {
        result: (r) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(r);
        },
        error: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      if (this.pending.get(call.id) === call) signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Sends a request and reports its end to `done`, without a promise or a signal (the lane of decision
   * 46); `done` may be called before this returns (the connection is closed, the write failed).
   */
  start(method: string, params: JsonObject, opts: RequestOptions, done: CallDone): Pending {
    const call = new Pending(this, this.nextId++, method, opts, done);
    if (this.closedWith) {
      done.error(this.closedWith);
      return call;
    }
    this.pending.set(call.id, call);
    call.arm();
    try {
      this.writeLine(
        `{"jsonrpc":"2.0","id":${call.id},"method":${JSON.stringify(method)},"params":${paramsJson(params, opts.onProgress ? call.id : undefined)}}\n`,
      );
    } catch (err) {
      call.reject(err as Error);
    }
    return call;
  }

  /** @internal (Pending) */
  isPending(call: Pending): boolean {
    return this.pending.get(call.id) === call;
  }

  /** @internal (Pending): true when `call` was pending and no longer is. */
  forget(call: Pending): boolean {
    return this.pending.get(call.id) === call && this.pending.delete(call.id);
  }

  /** Takes a message meant for a direct request (its response or progress); false = not ours. */
  accept(message: JSONRPCMessage): boolean {
    if ('id' in message && !('method' in message)) {
      if (typeof message.id !== 'number' || message.id < DIRECT_ID_BASE) return false;
      // A late answer to a request that timed out or was cancelled is ours too: dropped quietly.
      const p = this.pending.get(message.id);
      if (p) this.settle(p, message as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } });
      return true;
    }
    if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
      const params = asObject(message.params);
      const token = params.progressToken;
      if (typeof token !== 'number' || token < DIRECT_ID_BASE) return false;
      const progress = params.progress;
      if (typeof progress === 'number') {
        const total = typeof params.total === 'number' ? params.total : undefined;
        const msg = typeof params.message === 'string' ? params.message : undefined;
        this.pending.get(token)?.opts.onProgress?.({ progress, total, message: msg });
      }
      return true;
    }
    return false;
  }

  /** True while a request waits for its answer (only then is a line worth cutting on its bytes). */
  get waiting(): boolean {
    return this.pending.size > 0;
  }

  /**
   * Takes a success response already cut by splitResultBytes; false = not ours. A tools/call result with
   * a sink goes to it as the bytes the server wrote, and the call settles with its envelope only
   * (forwardedResult); without a sink it is parsed once and keeps its text (raw-json.ts).
   */
  acceptResult(response: ResultBytes): boolean {
    if (response.id < DIRECT_ID_BASE) return false;
    const p = this.pending.get(response.id);
    if (!p) return true;
    const sink = p.method === 'tools/call' ? p.opts.onResultJson : undefined;
    // An error result is often where a server echoes what it was given (its credential): masked like a
    // JSON-RPC error is. Successful results pass as the server wrote them.
    const bytes = response.isError ? maskedJson(response.resultJson) : response.resultJson;
    if (!sink) {
      const text = bytes.toString('utf8');
      let result: JsonObject;
      try {
        result = JSON.parse(text) as JsonObject;
      } catch (e) {
        p.reject(
          new McpdError(
            'DOWNSTREAM_ERROR',
            `server ${this.serverName} sent a result for ${p.method} that is not JSON: ${(e as Error).message}`,
          ),
        );
        return true;
      }
      p.resolve(p.method === 'tools/call' ? withRawJson(result, text) : result);
      return true;
    }
    try {
      sink(bytes);
    } catch {
      // the sink only forwards bytes; the call still settles below, for its slot, metrics and history
    }
    p.resolve(forwardedResult(response.isError));
    return true;
  }

  /** The connection ended: every request still waiting fails as the SDK fails them. */
  close(): void {
    this.closedWith ??= new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
    for (const p of this.pending.values()) p.reject(this.closedWith);
  }

  private settle(p: Pending, response: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } }): void {
    const { error, result } = response;
    if (error !== undefined) {
      const code = typeof error.code === 'number' ? error.code : ErrorCode.InternalError;
      p.reject(new McpError(code, typeof error.message === 'string' ? error.message : 'error without a message', error.data));
    } else if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
      p.resolve(result as JsonObject);
    } else {
      p.reject(
        new McpdError(
          'DOWNSTREAM_ERROR',
          `server ${this.serverName} sent a malformed result for ${p.method}: the result must be a JSON object`,
        ),
      );
    }
  }

  /** @internal (Pending): a `notifications/cancelled` for the server. */
  tellCancelled(id: number, reason: string): void {
    try {
      this.writeLine(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })}\n`);
    } catch {
      // the server is gone: nothing to tell
    }
  }
}

/**
 * The params' JSON: `arguments` written as received when its text was kept (raw-json.ts), and last;
 * `_meta.progressToken` set when progress is asked for. Written member by member: copying the params
 * and deleting `arguments` turned the copy into a slow dictionary object on every call.
 */
function paramsJson(params: JsonObject, progressToken: number | undefined): string {
  let out = '';
  for (const key in params) {
    const value = params[key];
    if (key === 'arguments' || value === undefined || (key === '_meta' && progressToken !== undefined)) continue;
    out += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  if (progressToken !== undefined) out += `,"_meta":${JSON.stringify({ ...asObject(params._meta), progressToken })}`;
  if (params.arguments !== undefined) out += `,"arguments":${rawJsonOf(params.arguments) ?? JSON.stringify(params.arguments)}`;
  return out === '' ? '{}' : `{${out.slice(1)}}`;
}

/**
 * What a tools/call settles with when its result went to a ResultJsonSink: the envelope the core's own
 * bookkeeping reads (`isError`), not the content, which the sink has passed on.
 */
/** The JSON with every known secret masked (the same buffer when none occurs). */
function maskedJson(json: Buffer): Buffer {
  const text = json.toString('utf8');
  const masked = secretRedactor.text(text);
  return masked === text ? json : Buffer.from(masked);
}

function forwardedResult(isError: boolean): JsonObject {
  return isError ? { isError: true } : {};
}

function asObject(v: unknown): JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
}
