import type { ServerSpec } from './spec.js';

export type InstanceState = 'starting' | 'ready' | 'busy' | 'draining' | 'stopped' | 'failed';

/** Why an instance was started or stopped: shown in status and counted in metrics. */
export type StartCause = 'call' | 'metadata' | 'min-ready' | 'always-on' | 'restart' | 'scale-out';
export type StopCause = 'idle' | 'reload' | 'shutdown' | 'crash' | 'hung' | 'ttl' | 'removed' | 'operator';

export interface InstanceStatus {
  id: string;
  state: InstanceState;
  pid?: number;
  inFlight: number;
  startedAt: number;
  lastUsedAt: number;
  startCause: StartCause;
  /** stateful: routing keys bound to this instance. */
  boundKeys: number;
  /** Pinned routing keys placed here (subscriptions); a pinned instance is not idle-reaped. */
  pinnedKeys: number;
  /** The MCP version its session speaks (2026-07-28 or a 2025 one); undefined before the handshake. */
  protocolVersion?: string;
}

export interface PoolStatus {
  fingerprint: string;
  /** Server names (across profiles) that reference this spec, "profile/server". */
  references: string[];
  spec: ServerSpec;
  instances: InstanceStatus[];
  /** Calls waiting for a slot. */
  waiting: number;
  suspended: boolean;
  suspendedReason?: string;
  restarts: number;
  lastError?: string;
  lastErrorAt?: number;
  /** Recent errors, oldest first, each in full (bounded: ERROR_HISTORY_LIMIT). */
  errorHistory: { at: number; message: string }[];
  generation: number;
  /** The MCP version the pool's server speaks, from its newest session; undefined until one started. */
  protocolVersion?: string;
  /** Its server asked a client (sampling, elicitation, roots): each call gets an instance of its own. */
  asksClient?: boolean;
}

/** How many of a pool's recent errors its status keeps. */
export const ERROR_HISTORY_LIMIT = 10;

export interface RuntimeStatusView {
  pools: PoolStatus[];
  callers: CallerStatusRow[];
}

export interface CallerStatusRow {
  caller: string;
  profile: string;
  sessions: number;
  /** What the caller's tools/list holds, and its estimated size in model tokens. */
  toolCount?: number;
  toolTokens?: number;
  /** Tool search mode: every tool behind the search tool (absent = mode off). */
  catalogCount?: number;
  catalogTokens?: number;
}
