import type { Launcher, ProgressUpdate, ResultJsonSink } from '../../../contract/model/downstream.js';
import type { JsonObject } from '../../../shared/json.js';
import type { LogLevel, RuntimeSettings } from '../../../contract/model/profile.js';
import type { Clock } from './clock.js';

export interface LogEntry {
  level: LogLevel;
  event: string;
  fingerprint?: string;
  instance?: string;
  message: string;
  fields?: Record<string, unknown>;
}

export type LogFn = (e: LogEntry) => void;

export interface CallOptions {
  /** `stateful` pools bind this key (the caller session) to one instance; a pinned key goes to its pinned instance on any strategy. */
  routingKey?: string;
  signal?: AbortSignal;
  /** Whole-call deadline, pool wait included; default spec.callTimeoutSeconds. */
  timeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  onResultJson?: ResultJsonSink;
  /** Extra params of a tools/call (a 2025-11-25 task augmentation, `task: {ttl}`): see RequestOptions.taskParams. */
  taskParams?: JsonObject;
  /**
   * A listing the core makes for its own metadata cache, not a caller's request: it is not counted among
   * the calls in flight that a server→client request may belong to (ServerTraffic.callersOf), so it never
   * makes a caller's sampling / elicitation / roots request ambiguous.
   */
  forCache?: boolean;
  /**
   * The call only reads (a tool its server marks `readOnlyHint`, a resource read): it may run in a slot lent by a
   * call whose server is asking its caller, so an unanswered question does not starve reads (decision 64).
   */
  readOnly?: boolean;
}

/** What a pool reports upward to the manager. */
export interface PoolEvents {
  notification(fingerprint: string, instanceId: string, method: string, params: JsonObject): void;
  stderr(fingerprint: string, instanceId: string, line: string): void;
  toolsChanged(fingerprint: string): void;
  /** Lists restored from disk (resources, templates, prompts) are to be listed again: an instance of the spec now runs. */
  listsToVerify(fingerprint: string): void;
  /** The instance a pinned key was placed on ended; the next request with the key picks a new one. */
  pinLost(fingerprint: string, key: string): void;
  statusChanged(): void;
  /**
   * A call of `key` on the instance ended without the server's answer (cancelled, deadline, caller gone):
   * the server→client requests forwarded on its behalf are withdrawn.
   */
  callAbandoned?(fingerprint: string, instanceId: string, key: string): void;
  /** What the pool knows without running its server changed beside its lists (it asks its client): keep it on disk. */
  metadataChanged?(fingerprint: string): void;
}

export interface PoolDeps {
  launcher: Launcher;
  runtime: RuntimeSettings;
  clock: Clock;
  log: LogFn;
  events: PoolEvents;
  newInstanceId(): string;
  /** [0, 1) for the restart backoff's jitter; Math.random when absent (tests pass a constant). */
  random?: () => number;
}

/** Timeout of the ping that decides whether a server that missed a deadline is hung. */
export const PROBE_TIMEOUT_MS = 2000;
