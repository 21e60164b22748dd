import type { ControlApi, CoreInfo, StatusView, Subscription } from '../../../contract/control/control.js';
import type { LogRecord } from '../../../contract/control/control-areas.js';
import type { LogLevel } from '../../../contract/model/profile.js';
import type { AuditEntry } from '../../../contract/audit/audit-entry.js';
import type { CallerRow, ConnectInfo, OperatorAction, ServerPinsView, StoreFile } from '../../../contract/dashboard/dashboard-events.js';

export type { CallerRow, ConnectInfo, OperatorAction, StoreFile };

/** What the dashboard needs from the running core (the app layer adapts Core to it). */
export interface DashboardCore extends Pick<
  ControlApi,
  'listTools' | 'watchTools' | 'callTool' | 'watchStatus' | 'resources' | 'prompts' | 'logs' | 'context' | 'clientRequests' | 'tasks'
> {
  info(): CoreInfo;
  status(): StatusView;
  callers(): CallerRow[];
  /** Every log entry, unscoped (the "all callers" view). */
  allLogs(minLevel: LogLevel, signal: AbortSignal): Subscription<LogRecord>;
  storeFiles(): StoreFile[];
  /** Every server's tool pins, then again on each change (the Pins page). */
  watchPins(): Subscription<ServerPinsView[]>;
  connectInfo(): ConnectInfo;
  act(a: OperatorAction): Promise<unknown>;
  /** The audit log as it is written; absent when it is off. */
  audit: AuditFeed | undefined;
}

/** The audit log's writer as the dashboard reads it. */
export interface AuditFeed {
  recent(): readonly AuditEntry[];
  onWritten(fn: (entries: readonly AuditEntry[]) => void): () => void;
}
