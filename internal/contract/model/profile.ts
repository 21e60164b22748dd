import { DEFAULT_AUDIT, type AuditSettings } from './audit-settings.js';
import type { SmcpSettings } from './smcp-computer-settings.js';
import type { ServerSpec } from './spec.js';
import type { PolicyRule } from './policy.js';

/** A2C-SMCP input definitions: values for `${input:id}` placeholders. */
export type InputDef =
  | { id: string; type: 'promptString'; description?: string; default?: string; password?: boolean }
  | { id: string; type: 'pickString'; description?: string; options: string[]; default?: string }
  | { id: string; type: 'command'; description?: string; command: string; args?: Record<string, string> };

type NamespaceMode = 'prefix' | 'never';

export interface NamespacePolicy {
  mode: NamespaceMode;
  separator: string;
  /** Exposed names are kept within this many characters. */
  maxLength: number;
  /**
   * Characters of `maxLength` kept free for a prefix the client adds itself (Claude Code exposes
   * `mcp__<server>__<tool>`); names are fitted into `maxLength - reserve`. Absent = 0.
   */
  reserve?: number;
}

export const DEFAULT_NAMESPACE: NamespacePolicy = { mode: 'prefix', separator: '__', maxLength: 64 };

/**
 * Tool search mode: the client sees a search tool, a call tool and the pinned tools instead of the
 * whole catalog; the search tool returns full definitions of the best matches.
 */
export interface ToolSearchSettings {
  /** Exposed tool names (or `*`/`?` globs) always listed as well. */
  pinned: string[];
  /** Results of one search when the query does not ask for a number. */
  maxResults: number;
}

export const DEFAULT_TOOL_SEARCH: ToolSearchSettings = { pinned: [], maxResults: 5 };

export interface Profile {
  name: string;
  /** Absolute path of the YAML file it came from. */
  file: string;
  servers: ServerSpec[];
  inputs: InputDef[];
  namespace: NamespacePolicy;
  /** Absent: the whole catalog is listed. */
  toolSearch?: ToolSearchSettings;
}

export interface RuntimeSettings {
  /** Control-plane unix socket; empty = default location. */
  socket: string;
  /** host:port for /metrics and /healthz; empty = disabled. */
  metricsAddress: string;
  logLevel: LogLevel;
  /** Upper bound on waiting for a pool slot. */
  poolWaitSeconds: number;
  /** How long superseded snapshots stay addressable by cursors. */
  snapshotRetentionSeconds: number;
  pageSize: number;
  /**
   * How long a first listing (tools, prompts, resources) waits for servers still starting; it then
   * answers with what is ready, names the rest, and list_changed follows when they arrive.
   */
  listingBudgetSeconds: number;
  /** Restart backoff and crash-loop breaker. */
  restartBackoffMaxSeconds: number;
  crashLoopThreshold: number;
  crashLoopWindowSeconds: number;
  /** How long a graceful stop lets calls in flight finish before cancelling them. */
  shutdownGraceSeconds: number;
  /** Bytes a Session peer may leave unread before the core pauses reading it and drops its notifications. */
  sessionOutboundBytes: number;
  /** A Session that has not said hello by then is ended. */
  sessionHelloTimeoutSeconds: number;
  /** A partial Session frame with no further byte for this long ends its connection. */
  sessionFrameStallSeconds: number;
  /** Sessions one multiplexed (MCPD-SESSION/2) connection may carry at once. */
  sessionChannelsPerConnection: number;
  /** Every running instance is pinged this often; one that does not answer is recycled. 0 = off. */
  pingIntervalSeconds: number;
  /** The audit log (docs/audit.md); read when the core starts. */
  audit: AuditSettings;
}

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export const DEFAULT_RUNTIME: RuntimeSettings = {
  socket: '',
  metricsAddress: '127.0.0.1:9464',
  logLevel: 'info',
  poolWaitSeconds: 10,
  snapshotRetentionSeconds: 300,
  pageSize: 100,
  listingBudgetSeconds: 3,
  restartBackoffMaxSeconds: 30,
  crashLoopThreshold: 5,
  crashLoopWindowSeconds: 60,
  shutdownGraceSeconds: 10,
  sessionOutboundBytes: 8 * 1024 * 1024,
  sessionHelloTimeoutSeconds: 10,
  sessionFrameStallSeconds: 30,
  sessionChannelsPerConnection: 1024,
  pingIntervalSeconds: 30,
  audit: DEFAULT_AUDIT,
};

/** The whole store: every profile, the caller mapping, runtime settings. */
export interface ProfileStore {
  dir: string;
  profiles: Map<string, Profile>;
  /** caller name → profile name */
  callers: Map<string, string>;
  /**
   * caller name → its own `reserve` (callers.yaml long form): replaces the profile's `namespace.reserve`
   * in that caller's tool names, so clients with different prefixes can share a profile. Absent = none.
   */
  callerReserves?: ReadonlyMap<string, number>;
  runtime: RuntimeSettings;
  /** runtime.yaml `smcp:`: the core as A2C-SMCP Computers; absent = none. */
  smcp?: SmcpSettings;
  /** callers.yaml `policies:`, in order (docs/policy.md); absent = none (everything allowed). */
  policies?: readonly PolicyRule[];
}

export const DEFAULT_PROFILE = 'default';

/** Unknown callers get the `default` profile. */
export function profileFor(store: ProfileStore, caller: string): Profile {
  const mapped = store.callers.get(caller) ?? DEFAULT_PROFILE;
  const profile = store.profiles.get(mapped) ?? store.profiles.get(DEFAULT_PROFILE);
  if (!profile) throw new Error(`profile store ${store.dir} has no "${DEFAULT_PROFILE}" profile`);
  return profile;
}
