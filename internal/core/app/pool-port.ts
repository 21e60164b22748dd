import type { CallDone, ProgressUpdate, ResultJsonSink, StartedCall } from '../../contract/model/downstream.js';
import type { JsonObject } from '../../shared/json.js';
import type { PoolStatus } from '../../contract/model/runtime.js';
import type { ServerSpec } from '../../contract/model/spec.js';
import type { ToolSource } from './tool-service.js';
import type { SavedList } from '../infra/scheduler/index.js';

export interface SpecRef {
  spec: ServerSpec;
  /** "profile/server" names that use this spec. */
  references: string[];
}

/** What the core needs from the scheduler (PoolManager implements it). */
export interface PoolPort extends ToolSource {
  reconcile(specs: Map<string, SpecRef>, opts?: { resumeSuspended?: boolean }): Promise<void>;
  /** Any other MCP request to a pooled server (resources, prompts, completion …). */
  request(
    fingerprint: string,
    method: string,
    params: JsonObject,
    opts: {
      routingKey?: string;
      signal?: AbortSignal;
      timeoutMs?: number;
      onProgress?: (p: ProgressUpdate) => void;
      /** A listing the core makes for its own cache: never counted as a caller's call in flight. */
      forCache?: boolean;
    },
  ): Promise<JsonObject>;
  capabilities(fingerprint: string): JsonObject | undefined;
  /** A list restored from the on-disk metadata cache that no running instance has listed again yet (never starts anything). */
  savedList?(fingerprint: string, method: SavedList): JsonObject[] | undefined;
  /** A list the core listed: kept with the spec's metadata (on disk too), so the next core lists it without a server. */
  keepList?(fingerprint: string, method: SavedList, items: JsonObject[]): void;
  /** Lists restored from disk are to be listed again: an instance of the spec started (decision 32). */
  onListsToVerify?(cb: (fingerprint: string) => void): void;
  onNotification(cb: (fingerprint: string, instanceId: string, method: string, params: JsonObject) => void): void;
  /**
   * A tool call on its one path (decision 46): `done` hears its end, the handle cancels it; a call that has
   * to wait for a slot or a start is parked and resumed (Pool.toolCall). `callTool` is its promise wrapper.
   */
  toolCall(fingerprint: string, name: string, args: JsonObject, opts: ToolCallOpts, done: CallDone): StartedCall;
  callTool(fingerprint: string, name: string, args: JsonObject, opts: ToolCallOpts & { signal?: AbortSignal }): Promise<JsonObject>;
  onToolsChanged(cb: (fingerprint: string) => void): void;
  /** Caller routing keys a server→client request from this instance may belong to, best match first. */
  callersOf?(instanceId: string): string[];
  /** A call on the instance waits for its caller's answer: read-only calls may use its slot until the returned function runs. */
  lendSlot?(instanceId: string): () => void;
  /**
   * A server asked a client from this instance: its pool gives each call an instance of its own from now on
   * (kept in the metadata cache), and the instance waits on its client until the returned function is called.
   */
  clientAsked?(instanceId: string): () => void;
  /** A caller's call (routing key `key`) ended on the instance without the server's answer. */
  onCallAbandoned?(cb: (fingerprint: string, instanceId: string, key: string) => void): void;
  /** A client notification to every running instance of these pools; returns how many got it. */
  notifyServers?(fingerprints: Iterable<string>, method: string, params: JsonObject): number;
  /**
   * Holds a routing key on one instance of the pool, any strategy: requests with it go there and the
   * instance is not idle-reaped while pinned. Reference-counted with unpin(). Throws for an unknown pool.
   */
  pin?(fingerprint: string, key: string): void;
  unpin?(fingerprint: string, key: string): void;
  /** A request to the instance a pinned key is on, without a call slot (Pool.pinnedRequest); UNAVAILABLE once it is gone. */
  pinnedRequest?(fingerprint: string, key: string, method: string, params: JsonObject, timeoutMs: number): Promise<JsonObject>;
  /** The id of the instance a pinned key is placed on, if it is placed (the id its notifications come with). */
  pinnedInstance?(fingerprint: string, key: string): string | undefined;
  /** The pinned instance ended (crash, hung, spec removed by a reload): its state is gone; the next request with the key picks a new instance. */
  onPinLost?(cb: (fingerprint: string, key: string) => void): void;
  /** Operator actions (the dashboard, `mcpdctl restart`): resume a suspended pool, restart one instance, stop a pool's instances. */
  resume?(fingerprint: string): void;
  restartInstance?(fingerprint: string, instanceId: string): Promise<void>;
  stopPool?(fingerprint: string): Promise<void>;
  /** Waits for the pool's starts and stops in progress (what a restart started is ready or failed after it). */
  settlePool?(fingerprint: string): Promise<void>;
  onStderr(cb: (fingerprint: string, instanceId: string, line: string) => void): void;
  status(): PoolStatus[];
  onStatusChange(cb: () => void): void;
  shutdown(): Promise<void>;
}

/** What a tool call tells the pool. */
interface ToolCallOpts {
  routingKey?: string;
  timeoutMs?: number;
  onProgress?: (p: ProgressUpdate) => void;
  onResultJson?: ResultJsonSink;
  taskParams?: JsonObject;
}
