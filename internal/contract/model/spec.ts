import type { SandboxSpec } from './sandbox.js';

/** A downstream MCP server as configured in a profile, after defaults and `${…}` expansion. */
export type Transport = 'stdio' | 'streamable_http' | 'sse';
export type Strategy = 'stateless' | 'stateful' | 'persistent' | 'singleton';
export type ActivationMode = 'on-demand' | 'always-on';

export const TRANSPORTS: readonly Transport[] = ['stdio', 'streamable_http', 'sse'];
export const STRATEGIES: readonly Strategy[] = ['stateless', 'stateful', 'persistent', 'singleton'];
export const ACTIVATION_MODES: readonly ActivationMode[] = ['on-demand', 'always-on'];

export interface ToolMeta {
  /** Exposed name that replaces the namespaced one. */
  alias?: string;
  tags?: string[];
  autoApply?: boolean;
}

/**
 * OAuth 2.1 client settings of an HTTP server (docs/auth.md). All optional: without them the client
 * registers itself dynamically (or uses `clientMetadataUrl` when the authorization server accepts
 * client ID metadata documents) and asks for the scopes the server names.
 */
export interface OAuthSettings {
  /** A pre-registered client id (the authorization server does not offer dynamic registration). */
  clientId?: string;
  /** Its secret; absent = a public client. */
  clientSecret?: string;
  /** Scopes to ask for when the server's challenge and metadata name none. */
  scopes?: string[];
  /** https URL of this client's metadata document, used as client_id where supported. */
  clientMetadataUrl?: string;
}

export interface ServerSpec {
  /** Unique in its profile; the tool namespace. Not part of the fingerprint. */
  name: string;
  transport: Transport;
  /** stdio: argv, first element is the program. */
  cmd: string[];
  env: Record<string, string>;
  cwd?: string;
  /** streamable_http / sse endpoint. */
  url?: string;
  headers: Record<string, string>;
  /** streamable_http / sse: OAuth client settings; absent = defaults (sign-in still works). */
  oauth?: OAuthSettings;
  disabled: boolean;
  /** stdio: the server runs in a bubblewrap sandbox with these grants; absent = unsandboxed. */
  sandbox?: SandboxSpec;
  /** stdio: `sandbox: false` written on the server (an opt-out status shows), not merely no sandbox. */
  sandboxOptOut?: true;
  /**
   * Why the server cannot run with this store: an unset `${VAR}` or an input without a value. Such a
   * server is disabled; the rest of the store loads, and status, listings and calls name this reason.
   */
  unavailable?: string;
  /** Allow-list of downstream tool names; undefined = all. */
  exposeTools?: string[];
  forbiddenTools: string[];
  toolMeta: Record<string, ToolMeta>;
  defaultToolMeta?: ToolMeta;
  strategy: Strategy;
  /** In-flight calls per instance. */
  maxConcurrent: number;
  /** Hard cap on instances in the pool. */
  maxInstances: number;
  minReady: number;
  /** Idle instances above minReady are stopped after this long; 0 = never. */
  idleSeconds: number;
  activationMode: ActivationMode;
  sessionTTLSeconds: number;
  drainTimeoutSeconds: number;
  callTimeoutSeconds: number;
}

/** Defaults applied by the catalog when a field is absent. */
export const SPEC_DEFAULTS = {
  strategy: 'stateless' as Strategy,
  maxConcurrent: 8,
  maxInstances: 4,
  minReady: 0,
  idleSeconds: 300,
  activationMode: 'on-demand' as ActivationMode,
  sessionTTLSeconds: 1800,
  drainTimeoutSeconds: 10,
  callTimeoutSeconds: 120,
} as const;
