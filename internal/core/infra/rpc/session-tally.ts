import type { AdmissionCounts } from './request-admission.js';

/** One live Session as the tally reads it. */
export interface TalliedSession {
  unread(): number;
  readonly peak: number;
  readonly counts: AdmissionCounts;
}

/** The Sessions' output accounting, summed for /metrics (mcpd_session_* series). */
export interface SessionOutputTotals {
  /** Bytes the live Sessions have written and their peers not yet read. */
  unreadBytes: number;
  /** The most unread bytes any one Session held since the core started. */
  peakUnreadBytes: number;
  /** Requests read but not started because their Session's output was over (or would go over) its budget. */
  queuedRequests: number;
  /** Requests ever held back that way, since the core started. */
  deferredRequests: number;
}

/** Every live Session of the core, so its metrics can be read at scrape time without any polling. */
export class SessionTally {
  private readonly live = new Set<TalliedSession>();
  private deferredByGone = 0;
  private peakOfGone = 0;

  add(s: TalliedSession): void {
    this.live.add(s);
  }

  remove(s: TalliedSession): void {
    if (!this.live.delete(s)) return;
    this.deferredByGone += s.counts.deferred;
    this.peakOfGone = Math.max(this.peakOfGone, s.peak);
  }

  totals(): SessionOutputTotals {
    const t = { unreadBytes: 0, peakUnreadBytes: this.peakOfGone, queuedRequests: 0, deferredRequests: this.deferredByGone };
    for (const s of this.live) {
      const c = s.counts;
      t.unreadBytes += s.unread();
      t.peakUnreadBytes = Math.max(t.peakUnreadBytes, s.peak);
      t.queuedRequests += c.queued;
      t.deferredRequests += c.deferred;
    }
    return t;
  }
}
