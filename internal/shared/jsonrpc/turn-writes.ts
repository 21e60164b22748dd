import type { Writable } from 'node:stream';

/** Streams written while a read's messages are handled (holdWritesOfThisRead); released together. */
let held: Set<TurnWrites> | undefined;

/**
 * Called by a reader whose read carried more than one message: the writes their handling makes, at
 * once and in the microtasks it starts, leave in one writev per stream when that work is done. Under a
 * 16-loop load one read often carries several calls' messages, and each syscall saved is also a
 * wake-up saved in the process that reads; a lone message is never held (its first write goes at once).
 */
export function holdWritesOfThisRead(): void {
  if (held) return;
  held = new Set();
  // A tick queued from a microtask runs once the whole microtask queue has drained: after every
  // continuation this read's messages started.
  queueMicrotask(() => process.nextTick(releaseHeld));
}

function releaseHeld(): void {
  const streams = held;
  held = undefined;
  for (const w of streams ?? []) w.release();
}

/**
 * The writes of one event-loop turn leave in at most two system calls: the first goes out at once (a
 * lone message waits for nothing), the rest of the turn's are corked and handed to one writev on
 * nextTick. Under load many calls' messages share a turn (16 calls in flight: two syscalls instead of
 * up to 16); corking from the first write cost a single call ~10 µs per hop here. A read known to carry
 * several messages holds even the first (holdWritesOfThisRead).
 */
export class TurnWrites {
  private inTurn = false;
  private corked = false;

  constructor(private readonly stream: Writable) {}

  /** `stream.write`'s own answer: false = past the high-water mark, wait for 'drain'. */
  write(chunk: Buffer | string): boolean {
    if (held) {
      held.add(this);
      this.cork();
    } else if (!this.inTurn) {
      this.inTurn = true;
      process.nextTick(this.endTurn);
    } else {
      this.cork();
    }
    return this.stream.write(chunk);
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
