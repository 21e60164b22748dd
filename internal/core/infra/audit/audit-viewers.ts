import type { AuditEntry } from '../../../contract/audit/audit-entry.js';

/** Entries kept for a viewer that arrives later (the dashboard). */
const RECENT = 500;

/** Who watches the audit log as it is written: the entries written last, and listeners for each batch. */
export class AuditViewers {
  private readonly recentEntries: AuditEntry[] = [];
  private readonly listeners = new Set<(entries: readonly AuditEntry[]) => void>();

  /** The entries written last, oldest first. */
  recent(): readonly AuditEntry[] {
    return this.recentEntries;
  }

  /** Called with each batch once it is written. */
  onWritten(fn: (entries: readonly AuditEntry[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A batch's entries, once they are on disk. */
  tell(entries: readonly AuditEntry[]): void {
    if (entries.length === 0) return;
    this.recentEntries.push(...entries);
    if (this.recentEntries.length > RECENT) this.recentEntries.splice(0, this.recentEntries.length - RECENT);
    for (const fn of this.listeners) {
      try {
        fn(entries);
      } catch {
        // a viewer's failure must not stop the log
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
