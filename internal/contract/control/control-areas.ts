import type { CallDone, ProgressUpdate, StartedCall } from '../model/downstream.js';
import type { CallerTask, TaskToolMode, TaskView } from '../model/tasks.js';
import type { JsonObject } from '../../shared/json.js';
import type { LogLevel } from '../model/profile.js';
import type { NameCollision } from '../model/tool.js';
import type { ClientChannel } from './client-requests.js';
import type { ContextChannels } from './context-channels.js';

/**
 * The control plane beyond tools, one interface per area so each can grow on its own.
 * `Subscription`s end when the consumer calls `return()` or the given signal aborts.
 */
export type Subscription<T> = AsyncIterableIterator<T>;

export interface RequestOpts {
  /** The MCP client's name when the face knows it (CallOptions.client). */
  client?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  /** The caller's session, for stateful routing and for server→client requests. */
  routingKey?: string;
}

export interface ResourceEntry {
  uri: string;
  server: string;
  /** MCP Resource object, unchanged. */
  definition: JsonObject;
}

export interface ResourceTemplateEntry {
  uriTemplate: string;
  server: string;
  definition: JsonObject;
}

export interface ResourceSnapshot {
  etag: string;
  resources: readonly ResourceEntry[];
  templates: readonly ResourceTemplateEntry[];
  collisions: readonly NameCollision[];
}

export interface Paged<T> {
  etag: string;
  items: readonly T[];
  nextCursor?: string;
  /** First page only: servers still starting when the listing budget ran out (their items follow with list_changed). */
  pending?: readonly string[];
  /** Milliseconds until the earliest downstream list it drew on goes stale by its TTL; absent when none has one. */
  freshForMs?: number;
}

export interface ResourcesApi {
  /** `client` (lists and watches): the MCP client's name where the face knows it, for the door's interceptors. */
  list(caller: string, cursor?: string, pageSize?: number, client?: string): Promise<Paged<ResourceEntry>>;
  listTemplates(caller: string, cursor?: string, pageSize?: number, client?: string): Promise<Paged<ResourceTemplateEntry>>;
  watch(caller: string, lastEtag?: string, client?: string): Subscription<ResourceSnapshot>;
  /** MCP ReadResourceResult. */
  read(caller: string, uri: string, opts: RequestOpts): Promise<JsonObject>;
  /** Params of each `notifications/resources/updated` for the URI. */
  subscribe(caller: string, uri: string, signal: AbortSignal): Promise<Subscription<JsonObject>>;
  /** Which context channels (Desktop, Finder) the caller's servers give content to. */
  channels(caller: string): Promise<ContextChannels>;
}

export interface PromptEntry {
  name: string;
  server: string;
  downstreamName: string;
  fingerprint: string;
  definition: JsonObject;
}

export interface PromptSnapshot {
  etag: string;
  prompts: readonly PromptEntry[];
  collisions: readonly NameCollision[];
}

export interface PromptsApi {
  /** `client` (list and watch): the MCP client's name where the face knows it, for the door's interceptors. */
  list(caller: string, cursor?: string, pageSize?: number, client?: string): Promise<Paged<PromptEntry>>;
  watch(caller: string, lastEtag?: string, client?: string): Subscription<PromptSnapshot>;
  /** MCP GetPromptResult. */
  get(caller: string, name: string, args: JsonObject, opts: RequestOpts): Promise<JsonObject>;
  /** MCP CompleteResult for `completion/complete` params (prompt refs use exposed names). */
  complete(caller: string, params: JsonObject, opts: RequestOpts): Promise<JsonObject>;
}

type LogSource = 'core' | 'stderr' | 'notification';

export interface LogRecord {
  time: number;
  level: LogLevel;
  source: LogSource;
  server?: string;
  instance?: string;
  event: string;
  message: string;
  fields?: JsonObject;
}

export interface LogStreamOptions {
  /** Start with the recent entries the caller may see (like `tail -f`), then follow. */
  backlog?: boolean;
}

export interface LogsApi {
  /** Live entries at or above minLevel; bounded per reader (a slow reader loses its oldest entries, and is told). */
  stream(caller: string, minLevel: LogLevel, signal: AbortSignal, opts?: LogStreamOptions): Subscription<LogRecord>;
  /** The recent entries the caller may see, oldest first. */
  recent(caller: string, minLevel: LogLevel): LogRecord[];
}

export interface DesktopView {
  etag: string;
  windows: string[];
  warnings: string[];
}

export interface FinderQuery {
  keywords?: string[];
  fileType?: string;
  offset?: number;
  limit?: number;
}

export interface FinderView {
  /** DPEDocumentSummary objects. */
  documents: JsonObject[];
  totalCount: number;
}

export interface ContextChange {
  etag: string;
  reason: string;
}

export interface ContextApi {
  desktop(caller: string, size: number | undefined, window: string | undefined): Promise<DesktopView>;
  watchDesktop(caller: string): Subscription<ContextChange>;
  finder(caller: string, query: FinderQuery): Promise<FinderView>;
  watchFinder(caller: string): Subscription<ContextChange>;
}

export interface TaskStartOptions {
  /** The MCP client's name, for the door's interceptors. */
  client?: string;
  /** What the creating client declared (`elicitation`, `sampling`, `roots`): the input requests the task may put. */
  clientCapabilities?: JsonObject;
}

/** How a call started by `TasksApi.startAfterAnswer` went: a task once its client answered, or a plain call's end. */
export interface FirstAnswerOutcome extends CallDone {
  task(view: TaskView): void;
}

/**
 * Tasks the core hosts (SEP-2663) for tools of classic servers: per caller, ids unguessable, kept `ttlMs`
 * after they end. A caller reaches only its own tasks, from any session; another caller's id is unknown.
 */
export interface TasksApi {
  /** How the caller's tool takes tasks; `forbidden` for a name the caller's index does not hold. */
  modeOf(caller: string, tool: string): Promise<TaskToolMode>;
  /** Creates the task and starts its call; the task can be fetched once this returns. */
  start(caller: string, tool: string, args: JsonObject, opts: TaskStartOptions): TaskView | Promise<TaskView>;
  /**
   * Starts the call of a tool that asks before its task exists (TaskToolMode.asksFirst): its server's
   * questions go to `ask` (the creating request's client) until one is answered; the task is created then,
   * and `outcome.task` told. A call that ends before is no task: `outcome.result` or `outcome.error`.
   * The returned call cancels it until the task exists.
   */
  startAfterAnswer(
    caller: string,
    tool: string,
    args: JsonObject,
    opts: TaskStartOptions,
    ask: ClientChannel,
    outcome: FirstAnswerOutcome,
  ): StartedCall;
  /** A task of a server that runs tasks itself is asked of its server first (a promise then). */
  get(caller: string, taskId: string): TaskView | Promise<TaskView>;
  /** Answers (some of) the task's input requests, keyed as `inputRequests` names them. */
  update(caller: string, taskId: string, inputResponses: JsonObject): void;
  /** Cancels the task's call; a task that already ended is left as it is. */
  cancel(caller: string, taskId: string): void | Promise<void>;
  /** The caller's tasks, newest first. */
  list(caller: string): TaskView[];
  /** Every caller's tasks, newest first: the operator's view (the dashboard), which no caller's face offers. */
  listAll(): CallerTask[];
  /** Calls `fn` whenever a task of any caller starts, changes (status, progress, input) or ends; returns the unsubscribe. */
  onChange(fn: () => void): () => void;
  /**
   * Calls `fn` with the caller's task as it is now, then after each of its changes (status, progress, input,
   * outcome), until the returned function is called; an id the caller does not own throws as `get` does.
   */
  watch(caller: string, taskId: string, fn: (view: TaskView) => void): () => void;
}

/** `mcpdctl restart`: which server (name, "profile/server" or fingerprint), and optionally one instance. */
export interface RestartRequest {
  server: string;
  instance?: string;
}

export interface RestartedInstance {
  id: string;
  /** Absent when the instance had no process (still starting, or an HTTP server). */
  pid?: number;
  state: string;
}

/** What a restart did to one pool of the server. */
export interface RestartedPool {
  fingerprint: string;
  references: string[];
  /** The instances stopped; empty when none ran (nothing to restart). */
  stopped: RestartedInstance[];
  /** The pool's instances started since, once each is ready or failed. */
  started: RestartedInstance[];
  /** Why no replacement runs (its start failed, the pool is suspended); absent when one does. */
  error?: string;
}

/** Operator actions on the servers' pools, as the dashboard's pool actions (docs/operations.md). */
export interface ServersApi {
  /** Restarts the server's running instances (or the one named); answers once the replacements are up. */
  restart(caller: string, req: RestartRequest): Promise<RestartedPool[]>;
}
