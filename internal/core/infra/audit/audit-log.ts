import { Worker } from 'node:worker_threads';
import type { AuditEntry } from '../../../contract/audit/audit-entry.js';
import type { AuditRecord } from './audit-record.js';
import type { AuditWorkerData, FromAuditWorker, ToAuditWorker } from './audit-worker-messages.js';
import { AuditViewers } from './audit-viewers.js';
import { AuditWriter, type AuditWriterOptions } from './audit-writer.js';

/** How long records gather before they go to the worker together (one message per batch, not per call). */
const HAND_OVER_MS = 100;
/** Records handed over at once at most; more wait for the next batch. */
const BATCH = 512;

export interface AuditLogOptions extends Omit<AuditWriterOptions, 'flushMs'> {
  /** The worker's module (audit-worker.js beside this file, as built); tests of the sources name the built one. */
  workerUrl?: URL;
}

/**
 * The audit log as the core uses it (docs/audit.md). A call's record is only queued here; every 100 ms the
 * queue goes to a worker thread that digests, chains and appends it (audit-worker.ts, with AuditWriter), so
 * the hashing and the file work of a busy core never run on the thread that answers calls. The worker is
 * started with the first record. Should it fail, the log goes on in this thread, the records it had not
 * confirmed written counted as a gap.
 */
export class AuditLog {
  private queue: AuditRecord[] = [];
  private scheduled = false;
  private worker: Worker | undefined;
  /** The in-thread writer, once the worker has failed and is gone. */
  private fallback: AuditWriter | undefined;
  /** Set when the worker failed: records wait in the queue until it has stopped and the fallback writes. */
  private replaced: Promise<void> | undefined;
  /** Call records handed to the worker that it has not yet said are written. */
  private unconfirmed = 0;
  private closing: Promise<void> | undefined;
  /** close() was called: no more records are taken. */
  private stopping = false;
  /** The worker said it has written everything and stopped (its exit is then no failure). */
  private workerDone = false;
  private closed = false;
  private readonly viewers = new AuditViewers();
  private watched = false;

  constructor(private readonly o: AuditLogOptions) {}

  get file(): string {
    return this.o.file;
  }

  /** Queues one record; never waits, never throws. */
  record(r: AuditRecord): void {
    if (this.stopping) return;
    if (this.fallback) return this.fallback.record(r);
    this.queue.push(r);
    if (this.queue.length >= BATCH) this.handOver();
    else if (!this.scheduled) {
      this.scheduled = true;
      // unref: a pending hand-over never keeps a process alive; close() hands over what is left.
      setTimeout(() => this.handOver(), HAND_OVER_MS).unref();
    }
  }

  /** `fn` gets the entries written last (once the worker has sent them), then each batch as it is written. */
  watch(fn: (entries: readonly AuditEntry[]) => void): () => void {
    const stop = this.viewers.onWritten(fn);
    if (this.fallback) fn(this.fallback.recent());
    else if (this.worker && !this.watched) this.post({ type: 'watch', on: true });
    else if (this.watched) fn(this.viewers.recent());
    this.watched = true;
    return () => {
      stop();
      if (this.viewers.listening() || !this.watched) return;
      this.watched = false;
      if (this.fallback) return;
      // The worker sends its recent entries again when someone watches next.
      this.viewers.forget();
      this.post({ type: 'watch', on: false });
    };
  }

  /** Writes what is queued and stops the worker (the core's stop). */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.handOver();
    this.stopping = true;
    const worker = this.worker;
    if (worker) {
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (m: FromAuditWorker) => m.type === 'closed' && resolve());
        worker.once('exit', () => resolve());
      });
      this.post({ type: 'close' });
      await closed;
    }
    // A worker that failed meanwhile (or before) hands over to the fallback, which writes the rest.
    await this.replaced;
    this.closed = true;
    await worker?.terminate();
    if (this.fallback) {
      this.handOver();
      await this.fallback.close();
    }
    this.viewers.clear();
  }

  private handOver(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    if (this.fallback) {
      for (const r of this.queue.splice(0)) this.fallback.record(r);
      return;
    }
    if (this.replaced) return; // the fallback takes the queue once the worker is gone
    const records = this.queue;
    this.queue = [];
    this.worker ??= this.start();
    try {
      this.post({ type: 'records', records });
      this.unconfirmed += records.length;
    } catch (e) {
      // A value that cannot be copied to another thread (none that came as JSON): this thread writes from here on.
      this.queue.unshift(...records);
      this.failed(`a record could not be handed to the audit log's worker (${e instanceof Error ? e.message : String(e)})`);
    }
  }

  private post(m: ToAuditWorker): void {
    this.worker?.postMessage(m);
  }

  private start(): Worker {
    const { workerUrl, warn: _, ...options } = this.o;
    const data: AuditWorkerData = options;
    const worker = new Worker(workerUrl ?? new URL('./audit-worker.js', import.meta.url), { workerData: data });
    // The worker keeps no process alive: a core that stops closes it, and one that exits loses what a crash would.
    worker.unref();
    worker.on('message', (m: FromAuditWorker) => this.onMessage(m));
    worker.on('error', (e) => this.failed(`the audit log's worker failed: ${e.message}`));
    worker.on('exit', (code) => {
      if (!this.workerDone) this.failed(`the audit log's worker exited (code ${code})`);
    });
    if (this.watched) worker.postMessage({ type: 'watch', on: true } satisfies ToAuditWorker);
    return worker;
  }

  private onMessage(m: FromAuditWorker): void {
    switch (m.type) {
      case 'written':
        this.unconfirmed -= m.calls;
        if (m.entries) this.viewers.tell(m.entries);
        return;
      case 'recent':
        this.viewers.tell(m.entries);
        return;
      case 'warn':
        this.o.warn?.(m.message, m.fields);
        return;
      case 'closed':
        this.workerDone = true;
        return;
    }
  }

  /**
   * The log goes on in this thread, once the worker has stopped (so no append of it can land after the
   * fallback has read where the chain ends); what the worker had not confirmed written is a gap in the chain.
   */
  private failed(reason: string): void {
    if (this.replaced || this.closed) return;
    const worker = this.worker;
    this.worker = undefined;
    this.o.warn?.(`${reason}; the audit log goes on in the core's main thread`, { file: this.o.file });
    const lost = this.unconfirmed;
    this.unconfirmed = 0;
    // terminate() resolves with the exit code and never rejects.
    this.replaced = (worker ? worker.terminate() : Promise.resolve(0)).then(() => {
      const { workerUrl: _, ...options } = this.o;
      const fallback = new AuditWriter(options);
      if (lost > 0) fallback.recordLost(lost, `${reason} before it confirmed these entries written`);
      fallback.onWritten((entries) => this.viewers.tell(entries));
      this.fallback = fallback;
      this.handOver();
    });
  }
}
