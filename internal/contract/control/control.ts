import type { CallDone, ProgressUpdate, ResultJsonSink, StartedCall } from '../model/downstream.js';
import type { JsonObject } from '../../shared/json.js';
import type { RuntimeStatusView } from '../model/runtime.js';
import type { SmcpComputerStatus } from '../model/smcp-computer-settings.js';
import type { PolicyQuota } from '../model/policy.js';
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
  /** The MCP client's name (initialize's clientInfo) when the face knows it: what interceptors see. */
  client?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  onResultJson?: ResultJsonSink;
  /** tools/call params beside name and arguments: a task pass-through's augmentation (RequestOptions.taskParams). */
  taskParams?: JsonObject;
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
  /** callers.yaml `policies:` quotas in use (docs/policy.md). */
  policyQuotas?: PolicyQuota[];
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

/**
 * Which face of the core a call came through. Each face is given its own view of the door
 * (`Door.for(face)`), so what the door applies (admission, history, later policy and audit) knows it.
 */
export type Face = 'grpc' | 'session' | 'dashboard' | 'smcp';

/**
 * The door into the core: the only way a face reaches the core's use cases (docs/architecture.md, "The
 * door"). The core's composition root builds it once, with its interceptors; each face gets `for(face)`.
 */
export interface Door {
  for(face: Face): ControlApi;
}

import type { ContextApi, LogsApi, PromptsApi, ResourcesApi, ServersApi, Subscription, TasksApi } from './control-areas.js';
import type { ClientRequestsApi } from './client-requests.js';

export type { Subscription } from './control-areas.js';

/**
 * The door as one face sees it (`Door.for`): every call passes the door's interceptors. Only the door
 * implements it — `face` is what a face's code can tell it by, and the core's use cases (`Core`) have none.
 */
export interface ControlApi {
  readonly face: Face;
  info(): CoreInfo;
  registerCaller(caller: string, meta: CallerMeta): CallerSession;
  unregisterCaller(sessionId: string): void;
  /** `client`: the MCP client's name where the face knows it (for the door's interceptors). */
  listTools(caller: string, cursor?: string, pageSize?: number, client?: string): Promise<ToolPage>;
  watchTools(caller: string, lastEtag?: string, client?: string): Subscription<ToolSnapshot>;
  callTool(caller: string, name: string, args: JsonObject, opts: CallOptions): Promise<JsonObject>;
  /**
   * The entry of a tool call: `done` hears its end, exactly once; the returned handle cancels it. The
   * happy path is synchronous callbacks down to the server's stdin (decision 46); a call that must wait
   * (cold start, saturated pool, reload) is parked and resumed where it waited. `callTool` is the promise
   * wrapper on top; `opts.signal` and `opts.onProgress` are honoured by both.
   */
  toolCall(caller: string, name: string, args: JsonObject, opts: CallOptions, done: CallDone): StartedCall;
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
  /** Tasks the core hosts for task-supporting tools (docs/eras.md, "Tasks"). */
  readonly tasks: TasksApi;
  /** Operator actions on the servers' pools (restart), which pass the door like calls. */
  readonly servers: ServersApi;
}
