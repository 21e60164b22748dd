import type { LogRecord } from '../../../contract/control/control-areas.js';
import { secretRedactor } from '../../../shared/redactor.js';

/** A record as published: `fingerprint` and `caller` say whom it concerns (for scoping), not who reads it. */
export interface BusEntry {
  record: LogRecord;
  /** The server spec it concerns; absent = not about one server. */
  fingerprint?: string;
  /** The caller it concerns (e.g. "caller attached"); absent = not about one caller. */
  caller?: string;
  /** The store file it concerns (a warning about a profile); absent = not about one file. */
  storeFile?: string;
}

/** Decides, per reader, whether an entry is delivered and how it reads (server names differ per profile). */
export type LogView = (e: BusEntry) => LogRecord | undefined;

export interface LogBusOptions {
  /** Entries kept for readers that join later (`recent`, backlog). */
  backlog?: number;
  /** Per-reader queue bound; a reader that falls further behind loses its oldest entries. */
  capacity?: number;
  /** Told how many entries a slow reader lost (metrics). */
  onDrop?: (n: number) => void;
}

export interface LogSubscribeOptions {
  /** Start with the matching part of the backlog. */
  backlog?: boolean;
  signal?: AbortSignal;
}

const DEFAULT_BACKLOG = 1000;
const DEFAULT_CAPACITY = 1000;

/**
 * Fan-out of log entries. Publishing never waits and never grows memory without bound: each reader has
 * a fixed-size queue, and when it is full the oldest entry goes (newest logs matter most when a reader
 * catches up). The reader is then told how many it lost by a synthetic warning.
 */
export class LogBus {
  private readonly ring: BusEntry[] = [];
  private readonly readers = new Set<Reader>();
  private readonly taps = new Set<(e: BusEntry) => void>();
  private readonly backlogSize: number;
  private readonly capacity: number;

  constructor(private readonly opts: LogBusOptions = {}) {
    this.backlogSize = opts.backlog ?? DEFAULT_BACKLOG;
    this.capacity = opts.capacity ?? DEFAULT_CAPACITY;
  }

  publish(entry: BusEntry): void {
    // Masked once here, so every reader (StreamLogs, MCP logging, metrics, the backlog) gets the same text.
    const e: BusEntry = { ...entry, record: secretRedactor.value(entry.record) };
    this.ring.push(e);
    if (this.ring.length > this.backlogSize) this.ring.shift();
    for (const t of this.taps) {
      try {
        t(e);
      } catch {
        // an observer's failure must not stop logging
      }
    }
    for (const r of this.readers) r.offer(e);
  }

  /** Synchronous in-process observer (metrics); must be cheap. Returns an unsubscribe function. */
  tap(fn: (e: BusEntry) => void): () => void {
    this.taps.add(fn);
    return () => this.taps.delete(fn);
  }

  /** The backlog as one reader would see it, oldest first. */
  recent(view: LogView): LogRecord[] {
    const out: LogRecord[] = [];
    for (const e of this.ring) {
      const r = safeView(view, e);
      if (r) out.push(r);
    }
    return out;
  }

  subscribe(view: LogView, opts: LogSubscribeOptions = {}): AsyncIterableIterator<LogRecord> {
    const reader = new Reader(
      view,
      this.capacity,
      (n) => this.opts.onDrop?.(n),
      () => this.readers.delete(reader),
    );
    if (opts.backlog) for (const e of this.ring.slice(-this.capacity)) reader.offer(e);
    if (opts.signal?.aborted) reader.end();
    else {
      this.readers.add(reader);
      opts.signal?.addEventListener('abort', () => reader.end(), { once: true });
    }
    return reader;
  }

  get subscriberCount(): number {
    return this.readers.size;
  }

  /** Ends every reader (core shutdown). */
  close(): void {
    for (const r of [...this.readers]) r.end();
  }
}

function safeView(view: LogView, e: BusEntry): LogRecord | undefined {
  try {
    return view(e);
  } catch {
    return undefined;
  }
}

class Reader implements AsyncIterableIterator<LogRecord> {
  private queue: LogRecord[] = [];
  private dropped = 0;
  private done = false;
  private wake?: () => void;

  constructor(
    private readonly view: LogView,
    private readonly capacity: number,
    private readonly onDrop: (n: number) => void,
    private readonly detach: () => void,
  ) {}

  offer(e: BusEntry): void {
    if (this.done) return;
    const r = safeView(this.view, e);
    if (!r) return;
    this.queue.push(r);
    if (this.queue.length > this.capacity) {
      const over = this.queue.length - this.capacity;
      this.queue.splice(0, over);
      this.dropped += over;
      this.onDrop(over);
    }
    this.wake?.();
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.queue = [];
    this.detach();
    this.wake?.();
  }

  async next(): Promise<IteratorResult<LogRecord>> {
    for (;;) {
      if (this.done) return { value: undefined, done: true };
      if (this.dropped > 0) {
        const n = this.dropped;
        this.dropped = 0;
        return { value: droppedNotice(n), done: false };
      }
      const r = this.queue.shift();
      if (r) return { value: r, done: false };
      await new Promise<void>((res) => (this.wake = res));
      this.wake = undefined;
    }
  }

  async return(): Promise<IteratorResult<LogRecord>> {
    this.end();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<LogRecord> {
    return this;
  }
}

function droppedNotice(n: number): LogRecord {
  return {
    time: Date.now(),
    level: 'warning',
    source: 'core',
    event: 'logs.dropped',
    message: `${n} log entries were dropped because this reader fell behind`,
    fields: { dropped: n },
  };
}
