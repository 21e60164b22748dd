import type { Writable } from 'node:stream';

/**
 * The writes of one event-loop turn leave in one system call: the first write of a turn corks the
 * stream and a nextTick uncorks it, so Node hands everything written meanwhile to one writev. Under
 * load many calls' messages share a turn (16 calls in flight: one syscall instead of up to 16); a lone
 * message still leaves before the turn's promise jobs run (nextTick callbacks run first).
 */
export class TurnWrites {
  private corked = false;

  constructor(private readonly stream: Writable) {}

  /** `stream.write`'s own answer: false = past the high-water mark, wait for 'drain'. */
  write(chunk: Buffer | string): boolean {
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      process.nextTick(this.uncork);
    }
    return this.stream.write(chunk);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.stream.uncork();
  };
}
