import type { CallDone, ProgressUpdate, ResultJsonSink, StartedCall } from '../model/downstream.js';
import type { JsonObject } from '../../shared/json.js';
import type { RuntimeStatusView } from '../model/runtime.js';
import type { SmcpComputerStatus } from '../model/smcp-computer-settings.js';
import type { NameCollision, ToolEntry, ToolSnapshot } from '../model/tool.js';

/** What the control plane offers, independent of gRPC. The app implements it; rpc serves it. */
export interface CoreInfo {
  version: string;
  pid: number;
  configDir: string;
  socket: string;
  startedAt: number;
  coreId: string;
  profiles: string[];
  /** callers.yaml: caller → profile (callers not listed get "default"). */
  callers: Record<string, string>;
}

export type { CallerMeta, CallerSession } from '../model/caller.js';
import type { CallerMeta, CallerSession } from '../model/caller.js';

export interface ToolPage {
  etag: string;
  tools: readonly ToolEntry[];
  nextCursor?: string;
  collisions: readonly NameCollision[];
  /** Servers of the profile left out because their listing failed or is not done yet (first page only). */
  failures?: readonly ServerFailure[];
  /** Of those, the servers still starting when the listing budget ran out (first page only). */
  pending?: readonly string[];
  /** Milliseconds until the earliest downstream list it drew on goes stale by its TTL; absent when none has one. */
  freshForMs?: number;
}

export interface ServerFailure {
  server: string;
  error: string;
}

export interface CallOptions {
  routingKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  onResultJson?: ResultJsonSink;
  /** Aborts `signal`: its owner lets a stop's cutoff use it, so the gate makes no signal of its own per call. */
  abort?: (reason: Error) => void;
}

export interface ReloadOutcome {
  applied: boolean;
  issues: string[];
  poolsAdded: number;
  poolsRemoved: number;
  profilesChanged: string[];
}

export interface StatusView extends RuntimeStatusView {
  configDir: string;
  configIssues: string[];
  /** A stop began: new calls are refused while in-flight ones drain. */
  stopping: boolean;
  /** Calls running now (tools/call, resources/read, prompts/get, completion/complete). */
  inFlightCalls: number;
  /** During a stop, when its grace period ends (epoch ms). */
  stopDeadline?: number;
  /** runtime.yaml `smcp:` computers and their connection state. */
  smcpComputers?: SmcpComputerStatus[];
}

export interface StopOutcome {
  /** Calls running when the stop began. */
  inFlightCalls: number;
  graceSeconds: number;
  pid: number;
  /** False when a stop was already under way. */
  started: boolean;
  /** Gateways attached when the stop was asked, by process id. */
  gatewayPids: number[];
}

/** Admission of calls: refused once a stop began, counted while they run, cancelled when its grace ends. */
export interface CallAdmission {
  /**
   * Runs `fn` as one call; the signal `fn` gets also aborts when a stop's grace period ends. `abort`,
   * when the caller owns `signal`, lets the gate abort that signal instead of combining it with its own.
   */
  run<T>(
    what: string,
    signal: AbortSignal | undefined,
    fn: (signal: AbortSignal) => Promise<T>,
    abort?: (reason: Error) => void,
  ): Promise<T>;
}

import type { ContextApi, LogsApi, PromptsApi, ResourcesApi, Subscription } from './control-areas.js';
import type { ClientRequestsApi } from './client-requests.js';

export type { Subscription } from './control-areas.js';

export interface ControlApi {
  info(): CoreInfo;
  registerCaller(caller: string, meta: CallerMeta): CallerSession;
  unregisterCaller(sessionId: string): void;
  listTools(caller: string, cursor?: string, pageSize?: number): Promise<ToolPage>;
  watchTools(caller: string, lastEtag?: string): Subscription<ToolSnapshot>;
  callTool(caller: string, name: string, args: JsonObject, opts: CallOptions): Promise<JsonObject>;
  /**
   * The same call without a promise (decision 46), when nothing in it has to wait: `done` hears its end.
   * Undefined means nothing was started and `callTool` serves the call. Takes no progress (`onProgress`
   * and `signal` are ignored): a call whose client asked for progress goes to `callTool`.
   */
  startToolCall?(caller: string, name: string, args: JsonObject, opts: CallOptions, done: CallDone): StartedCall | undefined;
  status(): StatusView;
  watchStatus(): Subscription<StatusView>;
  reload(): Promise<ReloadOutcome>;
  /** Begins a graceful stop (the same as SIGTERM) and answers at once. */
  requestStop(): StopOutcome;
  readonly resources: ResourcesApi;
  readonly prompts: PromptsApi;
  readonly logs: LogsApi;
  readonly context: ContextApi;
  /** Server→client requests (sampling, elicitation, roots) routed to caller sessions. */
  readonly clientRequests: ClientRequestsApi;
}
