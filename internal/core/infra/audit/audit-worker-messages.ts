import type { AuditEntry } from '../../../contract/audit/audit-entry.js';
import type { AuditRecord } from './audit-record.js';
import type { AuditWriterOptions } from './audit-writer.js';

/** What the audit worker is started with: the writer's options, less the functions that cannot cross. */
export type AuditWorkerData = Omit<AuditWriterOptions, 'warn' | 'flushMs'>;

/** From the core's main thread to the audit worker. */
export type ToAuditWorker =
  | { type: 'records'; records: AuditRecord[] }
  /** Someone reads the log as it is written (the dashboard): send the recent entries, then each batch's. */
  | { type: 'watch'; on: boolean }
  /** Write what is queued, move the anchor to the end, answer `closed`. */
  | { type: 'close' };

/** From the audit worker to the core's main thread. */
export type FromAuditWorker =
  /** A batch is on disk: how many call entries it held, and its entries while watched. */
  | { type: 'written'; calls: number; entries?: AuditEntry[] }
  | { type: 'recent'; entries: AuditEntry[] }
  | { type: 'warn'; message: string; fields: Record<string, unknown> }
  | { type: 'closed' };
