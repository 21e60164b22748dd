import type { RawCallHandlers, SessionClient } from '../../contract/session/session-client.js';
import type { ProgressUpdate } from '../../contract/model/downstream.js';
import type { McpdError } from '../../shared/errors.js';
import { isJsonObject, type JsonObject } from '../../shared/json.js';
import { errorBody } from '../fast-tool-calls.js';
import type { Lane } from './lanes.js';
import type { LoopResponse } from './loop-transport.js';

/** A request a 2026-07-28 call sent toward the core: its answer, and how to cancel it. */
export interface Downstream {
  response: Promise<LoopResponse>;
  cancel(reason: string): void;
}

/**
 * Sends a request through the lane's gateway (the one MCP dispatcher, adapters and core link), as a session's
 * request goes: every method but `tools/call` (see `rawToolCall`).
 */
export function throughGateway(lane: Lane, method: string, params: JsonObject): Downstream {
  const { id, response } = lane.transport.request(method, params);
  return { response, cancel: (reason) => lane.transport.notify('notifications/cancelled', { requestId: id, reason }) };
}

/**
 * `tools/call` straight on the lane's core Session, as the stdio fast lane sends it (decision 17): the
 * dispatcher's parameter checks are skipped (isPlainToolCall lets only calls they would pass
 * come here; the core judges the rest, an unknown tool included), while whatever the core sends on that
 * Session during the call — server→client requests (MRTR), log messages — still reaches the lane's
 * gateway and so the request holding the lane. Progress comes with the call and goes to that request.
 */
export function rawToolCall(lane: Lane, session: () => Promise<SessionClient>, params: JsonObject): Downstream {
  const token = progressTokenOf(params);
  let core: { session: SessionClient; id: number } | undefined;
  let cancelled = false;
  let progressed = false;
  const response = new Promise<LoopResponse>((resolve) => {
    // As AdapterHost.forward does: an answer right behind its progress goes a turn later, so an SDK
    // client that reads both at once has run the progress handlers before the answer ends the request.
    const settle = (r: LoopResponse) => (progressed ? setImmediate(() => resolve(r)) : resolve(r));
    const fail = (e: unknown) => settle({ error: errorBody(e) as NonNullable<LoopResponse['error']> });
    const handlers: RawCallHandlers = {
      result: (bytes: Buffer) => {
        // The core checked the result is one JSON value (json-scan.ts); a parse failure still fails only this call.
        try {
          settle({ result: bytes.length > 0 ? (JSON.parse(bytes.toString('utf8')) as JsonObject) : {} });
        } catch (e) {
          fail(e);
        }
      },
      error: (e: McpdError) => fail(e),
      progress: (p: ProgressUpdate) => {
        if (token === undefined) return;
        progressed = true;
        lane.transport.sink?.notify('notifications/progress', { progressToken: token, ...p });
      },
    };
    // No Session to the core (yet, or any more): the call fails as the gateway's forward would fail it.
    session().then((s) => {
      if (cancelled) return fail(new Error('cancelled before it reached the core'));
      // A Session closing under the call makes startRaw throw: that fails this call, not the process.
      try {
        core = { session: s, id: s.startRaw('tools/call', JSON.stringify(params), handlers) };
      } catch (e) {
        fail(e);
      }
    }, fail);
  });
  return {
    response,
    cancel: (reason) => {
      if (cancelled) return;
      cancelled = true;
      core?.session.cancelRaw(core.id, reason);
    },
  };
}

/**
 * A `tools/call` whose params the SDK's schema would take (a string name, object arguments, a string or
 * number progress token): only those go raw, so a malformed call is refused exactly as before (-32602).
 */
export function isPlainToolCall(params: JsonObject): boolean {
  if (typeof params.name !== 'string') return false;
  if (params.arguments !== undefined && !isJsonObject(params.arguments)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isJsonObject(meta)) return false;
  return meta.progressToken === undefined || progressTokenOf(params) !== undefined;
}

function progressTokenOf(params: JsonObject): string | number | undefined {
  const token = isJsonObject(params._meta) ? params._meta.progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
