import type { ConfigIssue } from '../shared/errors.js';
import type { ProfileStore } from '../contract/model/profile.js';
import type { ServerSpec, Transport } from '../contract/model/spec.js';
import type { LocStr, Where } from './source.js';

/** `unresolved`: servers left out (disabled, with `unavailable` set) because a value is missing. */
export type LoadResult =
  { ok: true; store: ProfileStore; warnings: ConfigIssue[]; unresolved: ConfigIssue[] } | { ok: false; issues: ConfigIssue[] };

export interface LoadOptions {
  /** Environment for `${VAR}` and `MCPD_INPUT_*`; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** What `env` is, for the hint of an unset variable (default "mcpd's environment"). */
  envDescription?: string;
  /** Create a starter store when the directory holds none. */
  scaffold?: boolean;
  /** Run `command` inputs (default true; `mcpd validate` runs them only with --run-commands). */
  runCommands?: boolean;
  /** Store files larger than this are refused (runtime.yaml cannot set it: it is read under the cap). */
  maxFileBytes?: number;
}

export interface StoreDiff {
  addedFingerprints: string[];
  removedFingerprints: string[];
  /** Profiles added, removed, or whose servers/namespace/inputs differ. */
  changedProfiles: string[];
  callersChanged: boolean;
  runtimeChanged: boolean;
}

/** Fields that need no expansion, already defaulted and checked. */
export type FixedFields = Omit<ServerSpec, 'name' | 'transport' | 'cmd' | 'env' | 'cwd' | 'url' | 'headers' | 'oauth' | 'sandbox'>;

/** A server as read from YAML, before `${…}` expansion. */
export interface RawServer {
  where: Where;
  nameWhere: Where;
  name: string;
  transport: Transport;
  cmd: LocStr[];
  env: Array<[string, LocStr]>;
  cwd?: LocStr;
  url?: LocStr;
  headers: Array<[string, LocStr]>;
  oauth?: RawOAuth;
  /** `sandbox:` as written; false = `sandbox: false` (an explicit opt-out). */
  sandbox?: RawSandbox | false;
  fixed: FixedFields;
}

/** A server's `sandbox:` as read, before expansion. */
export interface RawSandbox {
  where: Where;
  read: LocStr[];
  write: LocStr[];
  allow: LocStr[];
}

/** A server's `oauth:` mapping as read, before expansion. */
export interface RawOAuth {
  where: Where;
  clientId?: LocStr;
  clientSecret?: LocStr;
  scopes?: string[];
  clientMetadataUrl?: LocStr;
}
