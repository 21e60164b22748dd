import type { LogRecord, Subscription } from '../../../contract/control/control-areas.js';

/** Where batches go, and whether the connection can take more right now. */
export interface LogSink {
  writable(): boolean;
  send(batch: { entries: LogRecord[]; dropped: number }): void;
  /** Called back when the connection drained. */
  onDrain(cb: () => void): () => void;
}

/** Entries held for a page that cannot keep up; beyond it the oldest go, and the page is told how many. */
export const RELAY_CAPACITY = 5000;
/** Entries per message: batching is what makes 1,000 entries/s cheap for the page. */
const BATCH = 500;

/**
 * Moves one log subscription to one page in batches. Batching is driven by arrivals (one flush per
 * turn of the event loop), never by a timer, so an idle stream costs nothing.
 */
export class LogRelay {
  private pending: LogRecord[] = [];
  private dropped = 0;
  private scheduled = false;
  private readonly offDrain: () => void;

  constructor(
    private readonly source: Subscription<LogRecord>,
    private readonly sink: LogSink,
  ) {
    this.offDrain = sink.onDrain(() => this.schedule());
    // A failing source ends this page's stream, never the core.
    this.pump().catch(() => this.stop());
  }

  private async pump(): Promise<void> {
    for await (const r of this.source) {
      if (r.event === 'logs.dropped' && typeof r.fields?.dropped === 'number') this.dropped += r.fields.dropped;
      this.pending.push(r);
      if (this.pending.length > RELAY_CAPACITY) this.dropped += this.pending.splice(0, this.pending.length - RELAY_CAPACITY).length;
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.pending.length > 0 && this.sink.writable()) {
      const entries = this.pending.splice(0, BATCH);
      this.sink.send({ entries, dropped: this.dropped });
      this.dropped = 0;
    }
  }

  stop(): void {
    this.offDrain();
    // return() only marks the subscription done and settles at once; stop() need not wait.
    void this.source.return?.();
    this.pending = [];
  }
}
