import type { JsonObject, JsonValue } from '../../shared/json.js';
import { isJsonObject } from '../../shared/json.js';
import { INPUT_KEY_META } from '../../contract/areas/params.js';
import type { Lane } from './lanes.js';
import type { Downstream } from './downstream.js';
import type { LoopResponse, LoopSink } from './loop-transport.js';
import { capabilityFor, logLevelPasses, MISSING_REQUIRED_CLIENT_CAPABILITY, type LogLevel } from './protocol.js';

type RequestId = string | number;

/**
 * How the gateway gathers a server's requests into one InputRequiredResult: a 2025-11-25 server that
 * needs several answers sends its requests together, and they reach the gateway a frame or a few apart.
 * Gathering ends GATHER_QUIET_MS after the latest one, and GATHER_MAX_MS after the first at most.
 */
const GATHER_QUIET_MS = 25;
const GATHER_MAX_MS = 250;

/** A server→client request waiting for the 2026 client's `inputResponses`. */
export interface PendingInput {
  key: string;
  id: RequestId;
  method: string;
  params: JsonObject;
}

/** What a call comes to next: its final answer, or requests the client must answer first. */
export type CallStep = { response: LoopResponse } | { inputs: PendingInput[] };

/**
 * One 2026-07-28 request running on a lane, across its MRTR rounds: the server's requests become input
 * requests (refused at once, -32021, for a capability the request did not declare), its progress and
 * log messages go to whichever HTTP answer is current.
 */
export class Call implements LoopSink {
  private readonly waiting: PendingInput[] = [];
  private wake?: () => void;
  private keys = 0;
  /** Where notifications go now (the current HTTP answer), if anywhere. */
  out?: (method: string, params: JsonObject) => void;
  /** Cancelled by the client: its lane was dropped, and nothing more is sent for it. */
  cancelled = false;

  private readonly response: Promise<LoopResponse>;

  constructor(
    readonly lane: Lane,
    private readonly downstream: Downstream,
    public capabilities: JsonObject,
    public logLevel: LogLevel | undefined,
  ) {
    this.response = downstream.response;
    lane.transport.sink = this;
  }

  /** Cancels the request toward the core (and the downstream server). */
  cancelDownstream(reason: string): void {
    this.downstream.cancel(reason);
  }

  notify(method: string, params: JsonObject): void {
    if (method === 'notifications/message') {
      // 2026-07-28: no log messages for a request that set no log level.
      if (!this.logLevel || typeof params.level !== 'string' || !logLevelPasses(params.level, this.logLevel)) return;
    }
    this.out?.(method, params);
  }

  ask(id: RequestId, method: string, params: JsonObject): void {
    const cap = capabilityFor(method);
    if (!cap || this.capabilities[cap] === undefined) {
      this.lane.transport.answer(id, {
        error: {
          code: MISSING_REQUIRED_CLIENT_CAPABILITY,
          message: `the client did not declare the "${cap ?? method}" capability in this request's clientCapabilities, so it cannot answer ${method}`,
          data: { requiredCapabilities: { [cap ?? method]: {} } },
        },
      });
      return;
    }
    this.waiting.push({ key: this.keyOf(method, params), id, method, params: withoutInputKey(params) });
    this.wake?.();
  }

  /** Waits for the call's answer or for server requests (gathered as GATHER_QUIET_MS says). */
  async next(): Promise<CallStep> {
    if (this.waiting.length === 0) {
      const woken = new Promise<void>((resolve) => (this.wake = resolve));
      const first = await Promise.race([this.response.then((response) => ({ response })), woken.then(() => undefined)]);
      this.wake = undefined;
      if (first) return first;
    }
    const until = Date.now() + GATHER_MAX_MS;
    for (let seen = 0; seen !== this.waiting.length && Date.now() < until;) {
      seen = this.waiting.length;
      await new Promise((r) => setTimeout(r, GATHER_QUIET_MS));
    }
    return { inputs: this.waiting.splice(0) };
  }

  /** Answers the server's requests with the client's responses. */
  answer(inputs: PendingInput[], responses: JsonObject): void {
    for (const input of inputs) {
      const r = responses[input.key];
      this.lane.transport.answer(input.id, { result: r as JsonObject });
    }
  }

  /** Refuses what the server still waits for (the client gave up, or the state expired). */
  abandon(inputs: PendingInput[], why: string): void {
    for (const input of inputs) this.lane.transport.answer(input.id, { error: { code: -32603, message: why } });
  }

  /** The final answer, whenever it comes (used to free the lane after an abandoned call). */
  settled(): Promise<LoopResponse> {
    return this.response;
  }

  private keyOf(method: string, params: JsonObject): string {
    const meta = params._meta;
    const named = isJsonObject(meta) ? meta[INPUT_KEY_META] : undefined;
    if (typeof named === 'string' && named !== '') return named;
    return `${method.replace(/\W+/g, '_')}_${++this.keys}`;
  }
}

function withoutInputKey(params: JsonObject): JsonObject {
  const meta = params._meta;
  if (!isJsonObject(meta) || !(INPUT_KEY_META in meta)) return params;
  const { [INPUT_KEY_META]: _key, ...rest } = meta;
  const out: JsonObject = { ...params };
  if (Object.keys(rest).length > 0) out._meta = rest as JsonValue;
  else delete out._meta;
  return out;
}
