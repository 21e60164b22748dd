/**
 * The MCP SDK's Protocol runs a notification's handler one microtask after the message arrives, but
 * settles a response at once (deleting the request's progress handler). A reader that hands the SDK
 * a final `notifications/progress` and its response in the same turn — one chunk of a pipe — loses
 * that notification. This orders the hand-over: once a notification went to the SDK, every later
 * message waits in a queue and is handed over from the microtask queue, behind that notification's
 * handler; a queued notification again sends the rest behind its own handler. Order is kept.
 */
export class NotificationsFirst<M> {
  private readonly queue: M[] = [];
  private draining = false;

  /** `deliver` hands one message to the SDK; true = it was a notification the SDK will dispatch late. */
  constructor(private readonly deliver: (message: M) => boolean) {}

  push(message: M): void {
    if (this.draining) {
      this.queue.push(message);
      return;
    }
    if (this.deliver(message)) this.drainLater();
  }

  private drainLater(): void {
    this.draining = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    for (let m = this.queue.shift(); m !== undefined; m = this.queue.shift()) {
      if (this.deliver(m)) return this.drainLater();
    }
    this.draining = false;
  }
}
