import type { JsonObject } from '../../shared/json.js';
import type { CoreInfo, StatusView } from '../control/control.js';
import type {
  ContextChange,
  DesktopView,
  FinderView,
  LogRecord,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
} from '../control/control-areas.js';
import type { ProgressUpdate } from '../model/downstream.js';
import type { LogLevel } from '../model/profile.js';
import type { NameCollision } from '../model/tool.js';
import type { AuditEntry } from '../audit/audit-entry.js';
import type { TaskStatus, TaskView } from '../model/tasks.js';

/**
 * The dashboard's socket protocol (Socket.IO namespace `/app`), declared once: the core's side
 * (core/infra/dashboard) answers these requests and pushes these events, the page (web/) asks and
 * listens with exactly these types. Requests are acked with a {@link Reply}.
 */

/** A caller the dashboard can pick: mapped in callers.yaml and/or attached right now. */
export interface CallerRow {
  caller: string;
  profile: string;
  sessions: number;
}

/** One problem of a store file, at its line. */
interface StoreIssue {
  line: number;
  field: string;
  message: string;
  hint?: string;
}

/** One file of the profile store, as text, with the problems found in it. */
export interface StoreFile {
  path: string;
  text: string;
  issues: StoreIssue[];
}

/** What the Connect page needs to write a client config that reaches this very core. */
export interface ConnectInfo {
  node: string;
  gateway: string;
  configDir: string;
  /** This core's control socket: snippets pass it (`--socket`) so they reach this core, not a default one. */
  socket: string;
}

export type OperatorAction =
  | { kind: 'restart'; fingerprint: string; instance: string }
  | { kind: 'stop-pool'; fingerprint: string }
  | { kind: 'resume'; fingerprint: string }
  | { kind: 'reload' }
  /** Accepts a server's withheld tool definitions (one tool, or all): `mcpdctl pins approve SERVER [TOOL]`. */
  | { kind: 'approve-pins'; server: string; tool?: string };

/** A tool withheld because its definition changed since it was approved, with the change as diff lines. */
interface WithheldToolView {
  name: string;
  kind: 'changed' | 'renamed';
  /** The pinned name it replaces (renamed), else its own. */
  from: string;
  /** `changed: NAME` / `renamed: A → B`, then `- field: before` / `+ field: after` lines. */
  diff: string[];
}

/** One server's tool pins, as the Pins page shows them. */
export interface ServerPinsView {
  server: string;
  pinned: number;
  withheld: WithheldToolView[];
}

/** The live views a page can watch; each pushes its own event. */
export type WatchKind = 'status' | 'tools' | 'resources' | 'prompts' | 'desktop' | 'finder' | 'logs' | 'pins' | 'audit' | 'tasks';

/** What each watch needs besides its kind. */
export interface WatchParams {
  status: Record<string, never>;
  pins: Record<string, never>;
  tools: { caller: string };
  resources: { caller: string };
  prompts: { caller: string };
  desktop: { caller: string };
  finder: { caller: string };
  /** Without a caller: every entry of the core (the "all callers" view). */
  logs: { caller?: string; minLevel?: LogLevel };
  /** Without a caller: every caller's entries. */
  audit: { caller?: string };
  /** Without a caller: every caller's tasks. */
  tasks: { caller?: string };
}

type WatchArgs = { [K in WatchKind]: { kind: K } & WatchParams[K] }[WatchKind];

/** A listed tool as the dashboard shows it (the caller's view, plus the context tool). */
export interface DashboardTool {
  name: string;
  server: string;
  downstreamName: string;
  definition: JsonObject;
}

/** The server→client requests a try-it call may bring to the page (2025 requests, or a 2026 InputRequiredResult's). */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage';

/**
 * A server needs input to finish a `call` of this page: the elicitation (its `message`, and a form built
 * from `requestedSchema`, or a `url` to open) or the sampling request (`messages`, `systemPrompt`) as the
 * server sent it. Only the page that made the call gets it.
 */
export interface InputRequest {
  /** The page's call id. */
  id: string;
  /** This request's id, for `input-answer`. */
  request: string;
  method: InputMethod;
  params: JsonObject;
}

/**
 * The answer to an `input-request`. Elicitation: `accept` with `content` (checked against the request's
 * requestedSchema), `decline` or `cancel`, given to the server as they are. Sampling: `accept` with
 * `text` (the reply the server gets as the model's), or `decline`/`cancel` (the server gets the "user
 * rejected" error, as from any client whose user refuses).
 */
export interface InputAnswer {
  request: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: JsonObject;
  text?: string;
}

/** What an MCP App's UI resource declares it needs from the browser (`_meta.ui.csp` of its contents). */
export interface AppCsp {
  connectDomains: string[];
  resourceDomains: string[];
  frameDomains: string[];
  baseUriDomains: string[];
}

/**
 * A tool's MCP App, ready to show: its `ui://` resource (read through the door as the caller) is served
 * once at `src`, a path of this listener, with the CSP built from `csp`; the page frames it sandboxed.
 */
export interface AppFrame {
  /** Single-use path of the app's HTML (`/app/frame/<random>`), valid for a minute. */
  src: string;
  uri: string;
  server: string;
  csp: AppCsp;
  /** The browser features the resource asks for (camera, microphone, geolocation, clipboardWrite): never granted. */
  permissions: string[];
  prefersBorder?: boolean;
}

/**
 * A task the core hosts, as the Tasks page lists it: its envelope without the result, error or input
 * requests (those come with `task`, for the one opened), so a list of many finished tasks stays small.
 */
export interface TaskRow {
  caller: string;
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  tool?: string;
  server?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  /** How many input requests wait for an answer (input_required). */
  inputs: number;
}

/** Every request a page may send: its arguments and the value of a successful answer. */
interface DashboardRequests {
  hello: { args: Record<string, never>; answer: { info: CoreInfo; status: StatusView; callers: CallerRow[] } };
  watch: { args: WatchArgs; answer: null };
  unwatch: { args: { kind: WatchKind }; answer: null };
  /** tools/call; `id` is the page's own, for `cancel` and the `progress` events. */
  call: { args: { id: string; caller: string; name: string; args: JsonObject; timeoutMs?: number }; answer: JsonObject };
  cancel: { args: { id: string }; answer: null };
  /** resources/read (MCP ReadResourceResult). */
  read: { args: { caller: string; uri: string }; answer: JsonObject };
  templates: { args: { caller: string; cursor?: string }; answer: readonly ResourceTemplateEntry[] };
  subscribe: { args: { caller: string; uri: string }; answer: null };
  unsubscribe: { args: { uri: string }; answer: null };
  /** prompts/get (MCP GetPromptResult). */
  prompt: { args: { caller: string; name: string; args: Record<string, string> }; answer: JsonObject };
  /** completion/complete (MCP CompleteResult). */
  complete: { args: { caller: string; params: JsonObject }; answer: JsonObject };
  desktop: { args: { caller: string; size?: number; window?: string }; answer: DesktopView };
  finder: {
    args: { caller: string; keywords?: string; fileType?: string; offset?: number; limit?: number };
    answer: FinderView;
  };
  config: { args: Record<string, never>; answer: StoreFile[] };
  'connect-info': { args: Record<string, never>; answer: ConnectInfo };
  action: { args: OperatorAction; answer: unknown };
  /** The MCP App a tool of the caller links (`_meta.ui.resourceUri`), prepared for a sandboxed frame. */
  'app-frame': { args: { caller: string; tool: string }; answer: AppFrame };
  /** The person's answer to an `input-request` of one of this page's calls. */
  'input-answer': { args: InputAnswer; answer: null };
  /** One task of the caller in full: its result, error or input requests (`mcpdctl tasks CALLER TASK`). */
  task: { args: { caller: string; taskId: string }; answer: TaskView };
  /** Cancels a task of the caller (`tasks/cancel`); a task that ended already is left as it ended. */
  'cancel-task': { args: { caller: string; taskId: string }; answer: null };
  /**
   * Answers one elicitation the task of the caller waits on (`inputRequests[key]`), as its caller's
   * `tasks/update` would: `accept` with `content` checked against the request's requestedSchema, or
   * `decline` / `cancel`.
   */
  'answer-task': { args: TaskAnswer; answer: null };
}

interface TaskAnswer {
  caller: string;
  taskId: string;
  /** The input request's key in the task's `inputRequests`. */
  key: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: JsonObject;
}

export type DashboardRequest = keyof DashboardRequests;
export type RequestArgs<E extends DashboardRequest> = DashboardRequests[E]['args'];
export type RequestAnswer<E extends DashboardRequest> = DashboardRequests[E]['answer'];

/** How every request is acked. */
export type Reply<T> = { ok: true; value: T } | { ok: false; error: string };

/** A batch of log entries; `dropped` counts entries the page missed (it could not keep up). */
export interface LogBatch {
  caller: string | null;
  entries: LogRecord[];
  dropped: number;
}

/** Every event the core pushes to a page, with its payload. */
export interface DashboardPushes {
  status: { status: StatusView; callers: CallerRow[] };
  tools: { caller: string; etag: string; tools: readonly DashboardTool[]; collisions: readonly NameCollision[] };
  resources: {
    caller: string;
    etag: string;
    resources: readonly ResourceEntry[];
    templates: readonly ResourceTemplateEntry[];
    collisions: readonly NameCollision[];
  };
  prompts: { caller: string; etag: string; prompts: readonly PromptEntry[]; collisions: readonly NameCollision[] };
  'desktop-changed': ContextChange & { caller: string };
  'finder-changed': ContextChange & { caller: string };
  logs: LogBatch;
  /** Audit log entries as written (the recent ones first, when the watch begins); `off` when runtime.yaml turned it off. */
  audit: { caller: string | null; entries: readonly AuditEntry[]; off: boolean };
  /** Progress of a `call`, by the page's call id. */
  progress: ProgressUpdate & { id: string };
  /** notifications/resources/updated of a subscribed URI. */
  updated: { caller: string; uri: string; params: JsonObject };
  'watch-error': { kind: WatchKind; error: string };
  /** A server asks for input during one of this page's calls. */
  'input-request': InputRequest;
  /** An input request is over without the page's answer (the server withdrew it, it timed out, its call ended). */
  'input-withdrawn': { id: string; request: string; reason: string };
  /** The core began a graceful stop: the page may renew with the next core. */
  'core-stopping': { coreId: string };
  /** Every pinned server's pins, again whenever a pin file changes (a withheld tool, an approval). */
  pins: { servers: readonly ServerPinsView[] };
  /** The tasks the core hosts (one caller's, or all: `caller` null), newest first, again after every change. */
  tasks: { caller: string | null; tasks: readonly TaskRow[] };
}

export type DashboardPush = keyof DashboardPushes;

/** The watch that feeds each pushed view. */
export const WATCH_EVENTS = {
  status: 'status',
  tools: 'tools',
  resources: 'resources',
  prompts: 'prompts',
  desktop: 'desktop-changed',
  finder: 'finder-changed',
  logs: 'logs',
  pins: 'pins',
  audit: 'audit',
  tasks: 'tasks',
} as const satisfies Record<WatchKind, DashboardPush>;
