import type { JsonObject } from '../../shared/json.js';
import type { ServerSpec } from './spec.js';
import type { DownstreamTool } from './tool.js';

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Gets a successful tool result's JSON bytes — exactly as the server wrote them, a view into what the
 * core read (never decoded, parsed or copied) — as soon as the server's answer is read, once, before the
 * call's own bookkeeping (pool slot, metrics, history) runs. The call then settles with the result's
 * envelope only (`isError`, no content): a caller that gives a sink forwards the bytes and reads nothing
 * else of the result.
 */
export type ResultJsonSink = (resultJson: Uint8Array) => void;

export interface RequestOptions {
  signal?: AbortSignal;
  /** Per-request deadline; the request is cancelled downstream when it passes. */
  timeoutMs: number;
  /**
   * The whole call's deadline as its caller set it (default `timeoutMs`, which is what is left of it
   * after any wait for a slot): a missed deadline is reported with this number, so a call says the same
   * whichever way it reached the server (the lane of decision 46 or the full path).
   */
  deadlineMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  /** tools/call to a stdio server only (the direct lane, which keeps the result's text). */
  onResultJson?: ResultJsonSink;
  /**
   * tools/call only: params sent beside `name` and `arguments` — the task augmentation (`task: {ttl}`) that
   * makes a server implementing 2025-11-25 tasks answer with a CreateTaskResult (docs/eras.md, pass-through).
   */
  taskParams?: JsonObject;
}

/**
 * How a tool call ends, on its one path (decision 46): exactly one of the two, once, from the
 * turn that read the server's answer (or the timer's, or the cancel's). Nothing else is called after.
 */
export interface CallDone {
  result(result: JsonObject): void;
  error(err: Error): void;
}

/** A started call: `cancel` tells the server to stop and ends the call with `err` (once). */
export interface StartedCall {
  cancel(err: Error): void;
}

/** One live MCP client session to one downstream server instance. */
export interface DownstreamSession {
  /** MCP `capabilities` from the initialize result. */
  readonly capabilities: JsonObject;
  /** MCP `serverInfo` from the initialize result. */
  readonly serverInfo: JsonObject;
  /** OS pid of a stdio server (the process-group leader), if any. */
  readonly pid?: number;
  /** The MCP version the session speaks: 2026-07-28 (chosen by server/discover) or a 2025 one; unknown = undefined. */
  readonly protocolVersion?: string;
  /**
   * The server's list_changed notifications reach the core: a 2025 session's always (pushed on it), a
   * 2026-07-28 one's once its `subscriptions/listen` stream was acknowledged. Absent = unknown (false).
   */
  readonly hearsListChanges?: boolean;
  /**
   * All pages of `tools/list`, with guards against cursor loops and runaway sizes; `onPage` sees each
   * page's request params and raw result as it arrives (its caching hints).
   */
  listTools(opts?: { signal?: AbortSignal; onPage?: (params: JsonObject, page: JsonObject) => void }): Promise<DownstreamTool[]>;
  callTool(name: string, args: JsonObject, opts: RequestOptions): Promise<JsonObject>;
  /**
   * The same call with a completion callback instead of a promise (decision 46): where the session writes
   * straight to its server (stdio) nothing else runs between the caller and the write. `opts.signal` is not
   * used: `cancel` replaces it. Sessions without it (test fakes) are called through `callTool`.
   */
  toolCall?(name: string, args: JsonObject, opts: RequestOptions, done: CallDone): StartedCall;
  /** Any other MCP request (resources, prompts, completion …); result is the raw JSON result. */
  request(method: string, params: JsonObject, opts: RequestOptions): Promise<JsonObject>;
  /** A client notification to the server (`notifications/roots/list_changed` …). */
  sendNotification?(method: string, params: JsonObject): Promise<void>;
  /** Downstream notifications (`notifications/tools/list_changed`, `notifications/message` …). */
  onNotification(handler: (method: string, params: JsonObject) => void): void;
  /** Called once when the session ends for any reason (crash, close, transport error). */
  onClose(handler: (err?: Error) => void): void;
  /** Stderr lines of a stdio server. */
  onStderr(handler: (line: string) => void): void;
  /** Graceful stop: close transport, SIGTERM the process group, SIGKILL after grace, reap. */
  close(graceMs?: number): Promise<void>;
}

export interface LaunchContext {
  instanceId: string;
  signal?: AbortSignal;
}

/** Starts downstream servers; the scheduler owns when, the launcher owns how. */
export interface Launcher {
  launch(spec: ServerSpec, ctx: LaunchContext): Promise<DownstreamSession>;
}
