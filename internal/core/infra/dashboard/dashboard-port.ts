import type { ControlApi, CoreInfo, StatusView, Subscription } from '../../../contract/control/control.js';
import type { LogRecord } from '../../../contract/control/control-areas.js';
import type { LogLevel } from '../../../contract/model/profile.js';

/** A caller the dashboard can pick: mapped in callers.yaml and/or attached right now. */
export interface CallerRow {
  caller: string;
  profile: string;
  sessions: number;
}

/** One file of the profile store, as text, with the problems found in it. */
export interface StoreFile {
  path: string;
  text: string;
  issues: { line: number; field: string; message: string; hint?: string }[];
}

export interface ConnectInfo {
  node: string;
  gateway: string;
  configDir: string;
  socket: string;
}

export type OperatorAction =
  | { kind: 'restart'; fingerprint: string; instance: string }
  | { kind: 'stop-pool'; fingerprint: string }
  | { kind: 'resume'; fingerprint: string }
  | { kind: 'reload' };

/** What the dashboard needs from the running core (the app layer adapts Core to it). */
export interface DashboardCore extends Pick<
  ControlApi,
  'listTools' | 'watchTools' | 'callTool' | 'watchStatus' | 'resources' | 'prompts' | 'logs' | 'context'
> {
  info(): CoreInfo;
  status(): StatusView;
  callers(): CallerRow[];
  /** Every log entry, unscoped (the "all callers" view). */
  allLogs(minLevel: LogLevel, signal: AbortSignal): Subscription<LogRecord>;
  storeFiles(): StoreFile[];
  connectInfo(): ConnectInfo;
  act(a: OperatorAction): Promise<unknown>;
}
