const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * What happens to a line longer than maxLineBytes:
 * - `throw`: the stream is refused — push() throws and forgets what it held (a JSON-RPC peer: a message
 *   past the bound is an error of the peer's, and what follows it cannot be trusted);
 * - `truncate`: its first maxLineBytes are kept, then `…` (log lines: the start says what happened);
 * - `drop`: it is left out whole and counted (takeDropped), for a protocol that answers with an error
 *   and goes on.
 * `truncate` and `drop` skip the rest of the line and resume after its newline, so one long line neither
 * grows memory nor turns its tail into a second, bogus line.
 */
type OverLongLine = 'throw' | 'truncate' | 'drop';

export interface LineSplitterOptions {
  /** The longest line kept, in bytes (its line end not counted). */
  maxLineBytes: number;
  overLong: OverLongLine;
}

/**
 * Splits a byte stream into lines (LF or CRLF), bounded by maxLineBytes. push() each chunk, then read
 * every complete line with next() before the next push. A partial line is kept between chunks as the
 * chunks themselves and joined once, when its newline arrives (joining per chunk would copy a long line
 * quadratically); a chunk holding only whole lines is read in place.
 */
export class LineSplitter {
  /** Bytes that may hold complete lines. */
  private buffer: Buffer | undefined;
  /** False once a scan of `buffer` found no newline (until more bytes arrive with one). */
  private bufferNewline = false;
  /** Chunks not yet joined. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingNewline = false;
  /** Bytes of the line being received (since the last newline); kept for `truncate` and `drop` only. */
  private tail = 0;
  /** Inside an over-long line whose head was dealt with: bytes are skipped up to its newline. */
  private skipping = false;
  /** An over-long line's kept head (`truncate`), due after the complete lines before it. */
  private cut: string | undefined;
  private dropped = 0;

  constructor(private readonly o: LineSplitterOptions) {}

  push(chunk: Buffer | string): void {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.skipping) {
      const nl = bytes.indexOf(NEWLINE);
      if (nl === -1) return;
      this.skipping = false;
      bytes = bytes.subarray(nl + 1);
    }
    if (bytes.length === 0) return;
    if (this.o.overLong === 'throw') return this.pushBounded(bytes);
    this.add(bytes, bytes.lastIndexOf(NEWLINE));
    if (this.tail > this.o.maxLineBytes) this.cutTail();
  }

  /** The next complete line (without its line end), or null until more bytes arrive. */
  next(): string | null {
    if (this.cut !== undefined) {
      const line = this.lineFromBuffer();
      if (line !== null) return line;
      const cut = this.cut;
      this.cut = undefined;
      return cut;
    }
    if (this.pending.length > 0 && this.pendingNewline) this.join();
    return this.lineFromBuffer();
  }

  /**
   * The next complete line as bytes (a view into what was read, without its line end), or null: for a
   * reader that passes lines on without decoding them.
   */
  nextBytes(): Buffer | null {
    if (this.cut !== undefined) {
      const line = this.next();
      return line === null ? null : Buffer.from(line);
    }
    if (this.pending.length > 0 && this.pendingNewline) this.join();
    return this.bytesFromBuffer();
  }

  /** The unterminated rest as a last line (the stream ended), or null; the splitter is empty after. */
  rest(): string | null {
    if (this.pending.length > 0) this.join();
    const buf = this.buffer;
    const skipped = this.skipping;
    this.clear();
    if (!buf || buf.length === 0 || skipped) return null;
    const stop = buf[buf.length - 1] === CR ? buf.length - 1 : buf.length;
    return stop > this.o.maxLineBytes && this.o.overLong === 'truncate'
      ? `${buf.toString('utf8', 0, this.o.maxLineBytes)}…`
      : buf.toString('utf8', 0, stop);
  }

  /** How many over-long lines were dropped since the last call (`drop`). */
  takeDropped(): number {
    const n = this.dropped;
    this.dropped = 0;
    return n;
  }

  clear(): void {
    this.buffer = undefined;
    this.bufferNewline = false;
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingNewline = false;
    this.tail = 0;
    this.skipping = false;
    this.cut = undefined;
  }

  /** `throw`: the hot path (JSON-RPC over stdio); everything held counts towards the bound. */
  private pushBounded(bytes: Buffer): void {
    const size = (this.buffer?.length ?? 0) + this.pendingBytes + bytes.length;
    if (size > this.o.maxLineBytes) {
      this.clear();
      throw new Error(`a line exceeded ${this.o.maxLineBytes} bytes without a newline`);
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (bytes.indexOf(NEWLINE) !== -1) this.pendingNewline = true;
  }

  private add(bytes: Buffer, lastNewline: number): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (lastNewline === -1) this.tail += bytes.length;
    else {
      this.pendingNewline = true;
      this.tail = bytes.length - lastNewline - 1;
    }
  }

  /** The line being received passed the bound: keep its head (or count it) and skip to its newline. */
  private cutTail(): void {
    this.join();
    const all = this.buffer as Buffer;
    const start = all.length - this.tail;
    if (this.o.overLong === 'truncate') this.cut = `${all.toString('utf8', start, start + this.o.maxLineBytes)}…`;
    else this.dropped++;
    this.buffer = start > 0 ? all.subarray(0, start) : undefined;
    this.bufferNewline = start > 0;
    this.skipping = true;
    this.tail = 0;
  }

  private lineFromBuffer(): string | null {
    const bytes = this.bytesFromBuffer();
    return bytes === null ? null : bytes.toString('utf8');
  }

  private bytesFromBuffer(): Buffer | null {
    for (;;) {
      const buf = this.buffer;
      if (!buf || !this.bufferNewline) return null;
      const end = buf.indexOf(NEWLINE);
      if (end === -1) {
        this.bufferNewline = false;
        return null;
      }
      const stop = end > 0 && buf[end - 1] === CR ? end - 1 : end;
      this.buffer = end + 1 < buf.length ? buf.subarray(end + 1) : undefined;
      // A line that arrived whole in one chunk can still be over the bound (`throw` never holds one).
      if (stop <= this.o.maxLineBytes) return buf.subarray(0, stop);
      if (this.o.overLong === 'truncate') return Buffer.from(`${buf.toString('utf8', 0, this.o.maxLineBytes)}…`);
      this.dropped++;
    }
  }

  private join(): void {
    const parts = this.buffer && this.buffer.length > 0 ? [this.buffer, ...this.pending] : this.pending;
    // The common case, one chunk holding whole lines, is taken as it is.
    this.buffer = parts.length === 1 ? parts[0] : Buffer.concat(parts);
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingNewline = false;
    this.bufferNewline = true;
  }
}
