import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import { Call, type PendingInput } from './call.js';
import type { ReplyChannel, RequestId } from './channel.js';
import { LeftWhileWaiting, type LanePool } from './lanes.js';
import { decorateResult, mapError } from './results.js';
import { RequestStateSeal } from './request-state.js';
import { serveListen } from './listen.js';
import { isPlainToolCall, rawToolCall, throughGateway } from './downstream.js';
import { serveTask, TASK_METHODS, toolCallForCore, withTasksExtension } from './tasks.js';
import {
  EraError,
  envelopeOf,
  INVALID_PARAMS,
  META_SERVER_INFO,
  METHOD_NOT_FOUND,
  MRTR_METHODS,
  REMOVED_METHODS,
  SUPPORTED_VERSIONS,
  type RequestEnvelope,
} from './protocol.js';

/** How long a parked MRTR request waits for the client's retry. */
const PARK_TTL_MS = 120_000;
/** Parked MRTR requests one gateway process holds at most (each holds a lane). */
const MAX_PARKED = 32;

interface Parked {
  call: Call;
  inputs: PendingInput[];
  timer: NodeJS.Timeout;
}

export interface StatelessEndpointOptions {
  lanes: LanePool;
  caller: string;
  version: string;
  log: (msg: string) => void;
}

/** A JSON-RPC request of 2026-07-28 as it arrived (HTTP or stdio). */
export interface Incoming {
  id: RequestId;
  method: string;
  params: JsonObject;
  /** Who asked, as far as listen caps go (HTTP: the address and the clientInfo name); one client if absent. */
  client?: string;
}

/**
 * `mcpdmcp` for 2026-07-28, whatever the face: each request is whole (no initialize, no session). It is
 * checked (`_meta`, version, removed methods), then served on a lane — a gateway with its own core
 * Session — so the 2025-11-25 model behind it is untouched; server→client requests become
 * InputRequiredResults and the client's retry answers them (docs/eras.md). What a face checks of its own
 * (HTTP headers) it checks before `serve`; the answer goes to the request's ReplyChannel.
 */
export class StatelessEndpoint {
  private readonly seal = new RequestStateSeal();
  private readonly parked = new Map<string, Parked>();

  constructor(private readonly o: StatelessEndpointOptions) {}

  /** The lanes requests run on (a face may list on them, as the HTTP face does for SEP-2243 headers). */
  get lanes(): LanePool {
    return this.o.lanes;
  }

  /**
   * Serves one request; resolves once it is answered (or, for `subscriptions/listen`, acknowledged). A
   * request whose client leaves while it waits for a lane is dropped there and never runs.
   */
  async serve(msg: Incoming, reply: ReplyChannel): Promise<void> {
    const left = new AbortController();
    const stopWatching = reply.onAbandon(() => left.abort());
    try {
      const envelope = this.check(msg);
      if (msg.method === 'subscriptions/listen') {
        return await serveListen(this.o.lanes, reply, msg.params, {
          client: msg.client ?? '',
          signal: left.signal,
          log: this.o.log,
          envelope,
        });
      }
      if (msg.method === 'server/discover') return reply.result(await this.discover());
      if (TASK_METHODS.has(msg.method)) return await serveTask(this.o.lanes, msg.method, msg.params, envelope, reply, left.signal);
      if (MRTR_METHODS.has(msg.method) && typeof msg.params.requestState === 'string') return await this.resume(msg, envelope, reply);
      await this.start(msg, envelope, reply, left.signal);
    } catch (e) {
      // Its client has gone: there is no one to answer.
      if (e instanceof LeftWhileWaiting) return;
      this.refuse(reply, e);
    } finally {
      stopWatching();
    }
  }

  /** The envelope of a request the endpoint serves, or an EraError saying why it does not. */
  check(msg: Incoming): RequestEnvelope {
    const envelope = envelopeOf(msg.params);
    if (REMOVED_METHODS.has(msg.method)) {
      throw new EraError(404, METHOD_NOT_FOUND, `Method not found: ${msg.method} is not part of 2026-07-28 (see docs/eras.md)`);
    }
    return envelope;
  }

  async close(): Promise<void> {
    for (const [id, p] of this.parked) this.unpark(id, p, 'the gateway is shutting down');
    await this.o.lanes.close();
  }

  private async discover(): Promise<JsonObject> {
    const init = await this.o.lanes.describe();
    return {
      resultType: 'complete',
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: withTasksExtension(isJsonObject(init.capabilities) ? init.capabilities : {}),
      ...(typeof init.instructions === 'string' ? { instructions: init.instructions } : {}),
      ttlMs: 60_000,
      cacheScope: 'private',
      _meta: { [META_SERVER_INFO]: (init.serverInfo ?? { name: 'mcpd', version: this.o.version }) as JsonValue },
    };
  }

  private async start(msg: Incoming, envelope: RequestEnvelope, reply: ReplyChannel, left: AbortSignal): Promise<void> {
    const lane = await this.o.lanes.acquire(left);
    try {
      if (envelope.logLevel && lane.level !== envelope.logLevel) {
        const set = await lane.transport.request('logging/setLevel', { level: envelope.logLevel }).response;
        if (!set.error) lane.level = envelope.logLevel;
      }
    } catch (e) {
      this.o.lanes.release(lane);
      throw e;
    }
    const core = lane.gateway.coreSession;
    const downstream =
      msg.method === 'tools/call' && core && isPlainToolCall(msg.params)
        ? rawToolCall(lane, core, toolCallForCore(forwardParams(msg.params), envelope))
        : throughGateway(lane, msg.method, forwardParams(msg.params));
    const call = new Call(lane, downstream, envelope.clientCapabilities, envelope.logLevel);
    await this.drive(call, msg, reply);
  }

  private async resume(msg: Incoming, envelope: RequestEnvelope, reply: ReplyChannel): Promise<void> {
    const claims = this.seal.open(String(msg.params.requestState), { caller: this.o.caller, method: msg.method, target: targetOf(msg) });
    const p = this.parked.get(claims.park);
    if (!p)
      throw new EraError(
        200,
        INVALID_PARAMS,
        'Invalid params: requestState names a request that already ended or expired; call again without it',
      );
    const responses = isJsonObject(msg.params.inputResponses) ? msg.params.inputResponses : {};
    const missing = p.inputs.filter((i) => responses[i.key] === undefined);
    if (missing.length > 0) {
      // Re-ask what is still missing under a fresh state (SEP-2322 prefers that to an error).
      reply.result(this.inputRequired(claims.park, msg, p.inputs));
      return;
    }
    this.parked.delete(claims.park);
    clearTimeout(p.timer);
    p.call.capabilities = envelope.clientCapabilities;
    p.call.logLevel = envelope.logLevel;
    p.call.answer(p.inputs, responses);
    await this.drive(p.call, msg, reply);
  }

  /** Runs a call until it answers (lane released) or needs input (call parked). */
  private async drive(call: Call, msg: Incoming, reply: ReplyChannel): Promise<void> {
    call.out = (method, params) => reply.notify(method, params);
    const stopWatching = reply.onAbandon(() => this.cancel(call, 'the client gave the request up'));
    try {
      const step = await call.next();
      // A cancelled call's lane is gone; its late answer goes nowhere.
      if (call.cancelled) return;
      if ('response' in step) {
        this.o.lanes.release(call.lane);
        if (step.response.error) reply.error(mapError(msg.method, msg.params, step.response.error));
        else reply.result(decorateResult(msg.method, step.response.result ?? {}));
        return;
      }
      if (this.parked.size >= MAX_PARKED) {
        call.abandon(step.inputs, `the mcpd gateway holds at most ${MAX_PARKED} requests waiting for client input`);
        this.freeLater(call);
        reply.error({ code: -32603, message: `Too many requests waiting for input (${MAX_PARKED}); answer or drop some, then retry` });
        return;
      }
      const park = randomUUID();
      const timer = setTimeout(() => this.unpark(park, this.parked.get(park), 'the client did not retry in time'), PARK_TTL_MS);
      timer.unref();
      this.parked.set(park, { call, inputs: step.inputs, timer });
      call.out = undefined;
      reply.result(this.inputRequired(park, msg, step.inputs));
    } finally {
      stopWatching();
    }
  }

  private inputRequired(park: string, msg: Incoming, inputs: PendingInput[]): JsonObject {
    const requestState = this.seal.seal({
      park,
      caller: this.o.caller,
      method: msg.method,
      target: targetOf(msg),
      expires: Date.now() + PARK_TTL_MS,
    });
    const inputRequests: JsonObject = {};
    for (const i of inputs) inputRequests[i.key] = { method: i.method, params: i.params };
    return { resultType: 'input_required', inputRequests, requestState };
  }

  private unpark(id: string, p: Parked | undefined, why: string): void {
    if (!p) return;
    this.parked.delete(id);
    clearTimeout(p.timer);
    p.call.abandon(p.inputs, why);
    this.freeLater(p.call);
  }

  /** The lane comes back once the abandoned call has answered (its answer goes nowhere). */
  private freeLater(call: Call): void {
    call.out = undefined;
    // settled() never rejects (a closed lane answers its waiting requests with an error), and the lane is what matters.
    void call.settled().then(() => this.o.lanes.release(call.lane));
  }

  private cancel(call: Call, reason: string): void {
    if (call.cancelled) return;
    call.cancelled = true;
    call.cancelDownstream(reason);
    // A cancelled request's late traffic must not reach the next request on that lane.
    this.o.lanes.discard(call.lane);
  }

  /** Answers a refused request: an EraError as it says, anything else as an internal error. */
  refuse(reply: ReplyChannel, e: unknown): void {
    if (e instanceof EraError)
      return reply.error({ code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) }, e.status);
    this.o.log(`2026-07-28 request failed: ${(e as Error).message}`);
    reply.error({ code: -32603, message: `Internal error: ${(e as Error).message}` }, 500);
  }
}

/** The params the gateway's 2025-11-25 handlers get: no 2026 envelope, MRTR fields or caching fields. */
function forwardParams(params: JsonObject): JsonObject {
  const { _meta, inputResponses: _r, requestState: _s, ...rest } = params;
  if (isJsonObject(_meta) && _meta.progressToken !== undefined) rest._meta = { progressToken: _meta.progressToken };
  return rest;
}

/** The tool or prompt name, or the resource URI, a request is about (what its requestState is bound to). */
function targetOf(msg: Incoming): string {
  const v = msg.method === 'resources/read' ? msg.params.uri : msg.params.name;
  return typeof v === 'string' ? v : '';
}
