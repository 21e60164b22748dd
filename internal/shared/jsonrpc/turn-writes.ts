import type { Writable } from 'node:stream';

/**
 * One process's batching of writes across its streams. A reader whose read carried more than one
 * message calls holdWritesOfThisRead(): the writes their handling makes — at once and in the microtasks
 * it starts, on any stream of this batcher — leave in one writev per stream when that work is done.
 * Under a 16-loop load one read often carries several calls' messages, and each syscall saved is also
 * a wake-up saved in the process that reads; a lone message is never held (its first write goes at
 * once). The composition root makes one and gives it to every reader and writer whose reads cause the
 * others' writes (the gateway: its core Session and its stdout; the core: its Sessions and its servers'
 * stdio); a component given none batches only its own writes.
 */
export class WriteBatcher {
  /** Streams written while a read's messages are handled; released together. */
  private held: Set<TurnWrites> | undefined;

  holdWritesOfThisRead(): void {
    if (this.held) return;
    this.held = new Set();
    // A tick queued from a microtask runs once the whole microtask queue has drained: after every
    // continuation this read's messages started.
    queueMicrotask(() => process.nextTick(this.releaseHeld));
  }

  /** The writer of one stream, batched with this batcher's others. */
  writer(stream: Writable): TurnWrites {
    return new TurnWrites(stream, this);
  }

  /** @internal (TurnWrites) True when a read's work is being held: `w` is released with it. */
  holding(w: TurnWrites): boolean {
    this.held?.add(w);
    return this.held !== undefined;
  }

  private readonly releaseHeld = (): void => {
    const streams = this.held;
    this.held = undefined;
    for (const w of streams ?? []) w.release();
  };
}

/**
 * The writes of one event-loop turn leave in at most two system calls: the first goes out at once (a
 * lone message waits for nothing), the rest of the turn's are corked and handed to one writev on
 * nextTick. Under load many calls' messages share a turn (16 calls in flight: two syscalls instead of
 * up to 16); corking from the first write cost a single call ~10 µs per hop here. A read known to carry
 * several messages holds even the first (WriteBatcher.holdWritesOfThisRead).
 */
export class TurnWrites {
  private inTurn = false;
  private corked = false;

  constructor(
    private readonly stream: Writable,
    private readonly batcher: WriteBatcher,
  ) {}

  /** `stream.write`'s own answer: false = past the high-water mark, wait for 'drain'. */
  write(chunk: Buffer | string): boolean {
    if (this.batcher.holding(this)) {
      this.cork();
    } else if (!this.inTurn) {
      this.inTurn = true;
      process.nextTick(this.endTurn);
    } else {
      this.cork();
    }
    return this.stream.write(chunk);
  }

  /**
   * Writes the parts of one message in order, leaving in one writev with the turn's other writes (so a
   * large payload follows its header without being copied into one buffer with it).
   */
  writeParts(parts: readonly (Buffer | string)[]): boolean {
    if (!this.batcher.holding(this) && !this.inTurn) {
      this.inTurn = true;
      process.nextTick(this.endTurn);
    }
    this.cork();
    let ok = true;
    for (const part of parts) ok = this.stream.write(part);
    return ok;
  }

  /** The end of a held read's work: what it wrote leaves now. */
  release(): void {
    if (!this.corked) return;
    this.corked = false;
    this.stream.uncork();
  }

  private cork(): void {
    if (this.corked) return;
    this.corked = true;
    this.stream.cork();
  }

  private readonly endTurn = (): void => {
    this.inTurn = false;
    this.release();
  };
}
