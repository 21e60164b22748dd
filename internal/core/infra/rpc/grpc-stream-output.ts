import { approxBytes, WeighedStream } from './grpc-connection-output.js';

/**
 * A subscription stream's writes (WatchTools/Prompts/Resources, SubscribeResource, StreamLogs, the
 * Desktop and Finder watches), weighed against its own and its connection's budget. While either is
 * over it, the stream takes nothing more from its subscription, so what a slow reader misses is left to
 * the subscription's own rule: watches keep only their newest snapshot (or update), logs keep the
 * newest entries and say how many they dropped.
 */
export class StreamOutput extends WeighedStream {
  /** Resolves once this stream may write (it and its connection are within the budget), or `signal` aborts. */
  async room(signal: AbortSignal): Promise<void> {
    while (this.over && !signal.aborted) {
      this.conn.noteStreamHeld();
      await this.conn.nextTaken(signal);
    }
  }

  /**
   * Writes the item once there is room; false when `signal` aborted first. The last check and the write
   * run in one turn: streams of one connection woken together would otherwise all pass the check before
   * any of them wrote.
   */
  async send(toMessage: () => unknown, signal: AbortSignal): Promise<boolean> {
    while (this.over) {
      if (signal.aborted) return false;
      this.conn.noteStreamHeld();
      await this.conn.nextTaken(signal);
    }
    if (signal.aborted) return false;
    const msg = toMessage();
    this.write(msg, approxBytes(msg));
    return true;
  }

  /**
   * Writes each item of `source` until it ends or `signal` aborts. Nothing is taken from the source while
   * over the budget: it keeps what it keeps (the newest snapshot, the newest log entries).
   */
  async pipe<T>(source: AsyncIterator<T> | Iterator<T>, toMessage: (item: T) => unknown, signal: AbortSignal): Promise<void> {
    for (;;) {
      await this.room(signal);
      const next = await source.next();
      if (next.done || !(await this.send(() => toMessage(next.value), signal))) return;
    }
  }
}
