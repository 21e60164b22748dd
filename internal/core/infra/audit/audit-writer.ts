import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { anchorFile, anchorMismatch, anchorText, parseAnchor, type AuditAnchor } from '../../../contract/audit/audit-anchor.js';
import { GENESIS, chained } from '../../../contract/audit/audit-chain.js';
import type { AuditEntry, AuditFields } from '../../../contract/audit/audit-entry.js';
import { chainFiles } from '../../../contract/audit/audit-files.js';
import { fieldsOf, type AuditRecord } from './audit-record.js';
import { AuditViewers } from './audit-viewers.js';
import { LogAppends } from './log-appends.js';
import { chainEndIn, errorText, firstSeqIn, logEnd, replaceFile } from './log-file-io.js';
import { nextTurn, sliceEnds } from './turn-slices.js';

export interface AuditWriterOptions {
  file: string;
  /** Keep the arguments in clear beside their digest. */
  arguments: boolean;
  maxBytes: number;
  keep: number;
  /** Records waiting to be written; beyond it new ones are dropped (and the gap recorded). */
  capacity?: number;
  /** A problem worth a warning in the core's log (a failing disk, a log that does not continue). */
  warn?: (message: string, fields: Record<string, unknown>) => void;
}

const DEFAULT_CAPACITY = 10_000;
/** Entries per append: one write for many calls is what keeps the log cheap. */
const BATCH = 512;
/**
 * How long a record may wait for the next append. Appending once per call would put a file write's
 * callbacks between every two calls of a busy core; waiting a little makes one write of many entries.
 * Each append opens and closes the file (an operator's move is followed), three trips to libuv's thread
 * pool: at 20 ms they were a tenth of the audit's CPU on a core answering ~1,500 calls a second.
 */
const FLUSH_MS = 100;
/**
 * How often the anchor may move while entries keep coming. Moving it is a file written aside and renamed over
 * (four trips to the thread pool): after every batch it cost a busy core more than the appends. It lags the
 * log by at most this long, which verify accepts (the anchor is never ahead), and catches up when the log
 * goes quiet and when the core stops.
 */
const ANCHOR_MS = 1000;

interface Lost {
  count: number;
  from: number;
  to: number;
  reason: string;
}

/**
 * The audit log's one writer. `record` only queues (bounded): a call never waits on the disk. The queue is
 * drained after the current turn in batched appends, each entry chained to the one before it (docs/audit.md).
 * Entries that cannot be queued or written are counted, and a `gap` entry saying how many and when goes
 * into the chain once writing works again.
 */
export class AuditWriter {
  private queue: AuditRecord[] = [];
  private readonly capacity: number;
  private prev = GENESIS;
  private seq = 0;
  /** The oldest kept entry (the anchor's `firstSeq`): undefined until there is one. */
  private firstSeq: number | undefined;
  /** What the anchor on disk says now, to write it only when it moves. */
  private anchored = '';
  private anchoredAt = 0;
  /** A drain is set to move the anchor once ANCHOR_MS have passed. */
  private anchorTimer = false;
  private anchorFailing = false;
  private opened = false;
  private lost: Lost | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private drained: Promise<void> = Promise.resolve();
  private writing = false;
  private closed = false;
  private readonly viewers = new AuditViewers();
  private readonly newest: LogAppends;

  constructor(private readonly o: AuditWriterOptions) {
    this.capacity = o.capacity ?? DEFAULT_CAPACITY;
    this.newest = new LogAppends(o.file, o.warn);
  }

  get file(): string {
    return this.o.file;
  }

  /** Queues one record; never waits, never throws. */
  record(r: AuditRecord): void {
    if (this.closed) return;
    if (this.queue.length >= this.capacity) return this.lose(1, 'the audit queue was full');
    this.queue.push(r);
    if (this.writing) return; // the drain in progress hands it on when it ends
    this.drainWhenDue();
  }

  /** A full batch at once, else one append FLUSH_MS from now for what is queued. */
  private drainWhenDue(): void {
    if (this.queue.length >= BATCH) this.drainNow();
    else if (this.flushTimer === undefined && this.queue.length > 0) {
      // unref: a pending flush never keeps a process alive; close() writes what is left.
      this.flushTimer = setTimeout(() => this.drainNow(), FLUSH_MS).unref();
    }
  }

  /** The entries written last, oldest first. */
  recent(): readonly AuditEntry[] {
    return this.viewers.recent();
  }

  /** Called with each batch once it is written. */
  onWritten(fn: (entries: readonly AuditEntry[]) => void): () => void {
    return this.viewers.onWritten(fn);
  }

  /** Writes what is queued, then takes no more (the core's stop). */
  async close(): Promise<void> {
    // A drain in progress may hand over to another for what came meanwhile: wait until nothing is left.
    while (this.writing || this.queue.length > 0) {
      this.drainNow();
      await this.drained;
    }
    // The anchor to the chain's end, however recently it moved.
    this.closed = true;
    this.drainNow();
    await this.drained;
    this.viewers.clear();
  }

  private drainNow(): void {
    if (this.writing) return;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.writing = true;
    this.drained = this.drain().finally(() => {
      this.writing = false;
      // What came during the append waits as a record on an idle writer does. Drained at once, a steady
      // load of one call at a time got an append (open, write, close) every few calls: hundreds a second.
      if (!this.closed) this.drainWhenDue();
    });
  }

  /** One batch (what comes meanwhile is the next drain's, see drainNow), then the anchor if it is due. */
  private async drain(): Promise<void> {
    if (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      if (!(await this.ready())) {
        this.lose(batch.length, this.lastError);
        return;
      }
      await this.writeBatch(batch);
    }
    if (this.opened) await this.anchorWhenDue();
  }

  /** Moves the anchor if it is behind and ANCHOR_MS have passed (or the log is closing); else a drain later will. */
  private async anchorWhenDue(): Promise<void> {
    const wait = this.anchoredAt + ANCHOR_MS - Date.now();
    if (wait <= 0 || this.closed) return this.writeAnchor();
    if (this.anchorTimer || `${this.seq} ${this.firstSeq ?? this.seq + 1}` === this.anchored) return;
    this.anchorTimer = true;
    setTimeout(() => {
      this.anchorTimer = false;
      if (!this.closed) this.drainNow();
    }, wait).unref();
  }

  private lastError = '';

  private lose(n: number, reason: string): void {
    const now = Date.now();
    if (!this.lost) this.lost = { count: 0, from: now, to: now, reason };
    this.lost.count += n;
    this.lost.to = now;
  }

  /** Opens the log (once it can): the chain continues from the last entry on disk. */
  private async ready(): Promise<boolean> {
    if (this.opened) return true;
    try {
      const end = await logEnd(this.o.file);
      this.newest.opened(end);
      this.continueFrom(end.last);
      await this.checkAnchor();
      this.opened = true;
      return true;
    } catch (e) {
      this.lastError = `the audit log could not be opened: ${errorText(e)}`;
      return false;
    }
  }

  private continueFrom(last: string | undefined): void {
    if (last === undefined) return;
    const end = chainEndIn(last);
    if (end) {
      this.prev = end.hash;
      this.seq = end.seq;
      return;
    }
    this.o.warn?.('the audit log does not end with an entry; a new chain starts after it (mcpdctl audit verify names the line)', {
      file: this.o.file,
    });
  }

  /**
   * The log as found against its anchor: what is missing (cut from the end, the oldest files deleted while
   * no core wrote it) goes into the chain as a gap, since the anchor is about to move past it.
   */
  private async checkAnchor(): Promise<void> {
    const first = await firstSeqIn(chainFiles(this.o.file)[0]);
    this.firstSeq = first;
    const path = anchorFile(this.o.file);
    const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
    if (text === undefined) return this.writeAnchor();
    const anchor = parseAnchor(text);
    // An oldest file whose first line says nothing: the anchor knows where the log starts.
    this.firstSeq ??= anchor?.firstSeq;
    const m = anchor
      ? anchorMismatch(anchor, { first: first ?? this.seq + 1, last: { seq: this.seq, hash: this.prev } })
      : { lost: 0, problem: `${basename(path)} was no audit anchor (altered?)` };
    if (m) {
      this.o.warn?.(`the audit log does not match its anchor: ${m.problem}; a gap entry records it`, { file: this.o.file });
      this.lose(m.lost, `when a core opened it, the audit log did not match its anchor: ${m.problem}`);
    }
    await this.writeAnchor();
  }

  /** Moves the anchor to the chain's end (written aside, then renamed over: never half a line). */
  private async writeAnchor(): Promise<void> {
    const a: AuditAnchor = { seq: this.seq, hash: this.prev, time: new Date().toISOString(), firstSeq: this.firstSeq ?? this.seq + 1 };
    const key = `${a.seq} ${a.firstSeq}`;
    if (key === this.anchored) return;
    const path = anchorFile(this.o.file);
    this.anchoredAt = Date.now();
    try {
      await replaceFile(path, anchorText(a));
      this.anchored = key;
      this.anchorFailing = false;
    } catch (e) {
      // The anchor stays behind the log, which verify accepts; it moves with the next batch that can write it.
      if (!this.anchorFailing) this.o.warn?.(`writing the audit anchor failed: ${errorText(e)}`, { file: path });
      this.anchorFailing = true;
    }
  }

  private async writeBatch(batch: AuditRecord[]): Promise<void> {
    const fields: AuditFields[] = [];
    for (let i = 0; i < batch.length; i++) {
      if (sliceEnds(i)) await nextTurn();
      fields.push(fieldsOf(batch[i] as AuditRecord, this.o.arguments));
    }
    const lost = this.lost;
    if (lost) {
      const iso = (t: number) => new Date(t).toISOString();
      fields.unshift({ kind: 'gap', time: iso(Date.now()), lost: lost.count, from: iso(lost.from), to: iso(lost.to), reason: lost.reason });
      this.lost = undefined;
    }
    const done: AuditEntry[] = [];
    let i = 0;
    while (i < fields.length) {
      const { entries, text, next } = await this.chunk(fields, i);
      const failed = entries.length > 0 ? await this.newest.append(text) : undefined;
      if (failed !== undefined) {
        this.lastError = failed;
        const unwritten = fields.slice(i);
        const calls = unwritten.filter((f) => f.kind === 'call').length;
        const gap = unwritten.find((f) => f.kind === 'gap');
        this.lose(calls + (gap?.kind === 'gap' ? gap.lost : 0), this.lastError);
        if (gap?.kind === 'gap' && this.lost) this.lost.from = Math.min(this.lost.from, Date.parse(gap.from));
        break;
      }
      this.accept(entries);
      done.push(...entries);
      i = next;
      if (i < fields.length) await this.rotate();
    }
    // Appended, then anchored (by the drain, see anchorWhenDue): the anchor is never ahead of the log.
    this.viewers.tell(done);
  }

  /** The entries from `from` on that fit in the current file (at least one), chained, a slice a turn. */
  private async chunk(fields: AuditFields[], from: number): Promise<{ entries: AuditEntry[]; text: string; next: number }> {
    const entries: AuditEntry[] = [];
    let text = '';
    let bytes = 0;
    let { prev, seq } = this;
    let i = from;
    for (; i < fields.length; i++) {
      if (sliceEnds(i, from)) await nextTurn();
      const c = chained(fields[i] as AuditFields, seq + 1, prev);
      const e = c.entry;
      const line = `${c.line}\n`;
      const b = Buffer.byteLength(line);
      const size = this.newest.size;
      if (size + bytes > 0 && size + bytes + b > this.o.maxBytes) break;
      entries.push(e);
      text += line;
      bytes += b;
      prev = e.hash;
      seq = e.seq;
    }
    return { entries, text, next: i };
  }

  private accept(entries: AuditEntry[]): void {
    const last = entries.at(-1);
    if (!last) return;
    this.prev = last.hash;
    this.seq = last.seq;
    this.firstSeq ??= entries[0]?.seq;
  }

  /** A new file for the log; the anchor learns where the log starts now. */
  private async rotate(): Promise<void> {
    const first = await this.newest.rotate(this.o.keep);
    if (first !== undefined) this.firstSeq = first;
  }
}
