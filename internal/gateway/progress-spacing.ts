type RequestId = string | number;

/**
 * The most a Node process reads from a pipe in one go (libuv's read buffer for a stream): a line that
 * ends more than this many bytes after another never reaches the reader in the same read.
 */
export const PIPE_READ_BYTES = 64 * 1024;

/**
 * Keeps a request's answer out of the read that carries its last progress notification. The MCP SDK's
 * Protocol runs a notification's handler a microtask after reading it but settles a response at once,
 * dropping that request's progress handler: a progress line read in the same chunk as the answer is
 * lost ("unknown token"). Writing the answer a turn later does not help: a client that is slow to wake
 * reads both from its pipe at once. So an answer that would end within PIPE_READ_BYTES of its request's
 * last progress line starts with enough spaces (JSON whitespace, ignored by every parser) that its
 * newline can only arrive in a later read — after the microtasks that deliver the progress ran.
 * Only answers of requests that had progress written just before pay the padding.
 */
export class ProgressSpacing {
  /** Per request with progress on the wire and no answer yet: where its last progress line ended. */
  private readonly progressEnds = new Map<RequestId, number>();
  /** Bytes written since the first pending entry (only differences between offsets matter). */
  private written = 0;

  /** A progress line of request `id` (a notifications/progress it relates to) is being written. */
  progress(id: RequestId, line: Buffer | string): void {
    this.count(line);
    this.progressEnds.set(id, this.written);
  }

  /** The bytes to write for request `id`'s answer `line`: padded at the front when it would end too close. */
  answer(id: RequestId, line: Buffer | string): Buffer | string {
    const end = this.progressEnds.get(id);
    if (end === undefined) return this.other(line);
    const short = PIPE_READ_BYTES - (this.written + byteLength(line) - end);
    const out = short <= 0 ? line : typeof line === 'string' ? ' '.repeat(short) + line : Buffer.concat([Buffer.alloc(short, 0x20), line]);
    this.forget(id);
    return this.other(out);
  }

  /** Any other line: it counts towards the distance only while some request awaits its answer. */
  other<T extends Buffer | string>(line: T): T {
    if (this.progressEnds.size > 0) this.count(line);
    return line;
  }

  /** Request `id` will get no answer (cancelled by the client): nothing to keep for it. */
  forget(id: RequestId): void {
    if (this.progressEnds.delete(id) && this.progressEnds.size === 0) this.written = 0;
  }

  private count(line: Buffer | string): void {
    this.written += byteLength(line);
  }
}

function byteLength(line: Buffer | string): number {
  return typeof line === 'string' ? Buffer.byteLength(line) : line.length;
}
