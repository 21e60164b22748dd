/**
 * Requests a Session started before any answer says how big answers are: the budget is split this
 * many ways until then (a session whose answers turn out to be 4 MB holds at most this many of them).
 */
export const FIRST_WINDOW = 8;
/** Queued requests beyond which the session's reading pauses (their params are held in memory). */
const MAX_QUEUED = 1024;

/** What admission needs of the session's output: its unread bytes, and a call when they drain. */
export interface AdmissionOutput {
  unread(): number;
  /** Stops (true) or restarts (false) reading the peer's messages while the queue is full. */
  holdReading(hold: boolean): void;
}

export interface AdmissionCounts {
  /** Requests that waited in the queue because the session's output was over (or would go over) its budget. */
  deferred: number;
  queued: number;
  inFlight: number;
}

interface Waiting {
  id: number;
  bytes: number;
  start(): void;
}

/**
 * When a Session's requests start, so that what they answer stays near the session's output budget
 * even when its peer stops reading. Answers of requests already running cannot be refused (their
 * servers were asked), so the budget is applied before starting: a request starts only while the
 * unread output plus what the running requests are expected to answer fits in the budget, and never
 * while the unread output alone is over it. The expected answer is the session's recent largest
 * (halved per smaller answer, so one big answer does not narrow the session for good). One request
 * always runs when the output is under budget, so a session is never stuck with nothing in flight.
 */
export class RequestAdmission {
  private readonly queue: Waiting[] = [];
  private queuedBytes = 0;
  private running = 0;
  private expected: number;
  private deferredCount = 0;
  private holding = false;

  constructor(
    private readonly budget: number,
    private readonly output: AdmissionOutput,
  ) {
    this.expected = budget / FIRST_WINDOW;
  }

  get counts(): AdmissionCounts {
    return { deferred: this.deferredCount, queued: this.queue.length, inFlight: this.running };
  }

  /** Starts the request now when the budget allows and nothing queued is ahead of it; else queues it. */
  submit(id: number, bytes: number, start: () => void): void {
    if (this.queue.length === 0 && this.fits()) return this.run(start);
    this.deferredCount++;
    this.queue.push({ id, bytes, start });
    this.queuedBytes += bytes;
    this.watchQueue();
  }

  /** A started request answered with `bytes` of output (0 for an error or nothing sent). */
  answered(bytes: number): void {
    this.running--;
    this.expected = Math.max(bytes, this.expected / 2);
    this.pump();
  }

  /** The output drained (or fell): queued requests may start. */
  pump(): void {
    while (this.queue.length > 0 && this.fits()) {
      const next = this.queue.shift() as Waiting;
      this.queuedBytes -= next.bytes;
      this.run(next.start);
    }
    this.watchQueue();
  }

  /** Takes a queued request out (it was cancelled before it started); false when it is not queued. */
  remove(id: number): boolean {
    const i = this.queue.findIndex((w) => w.id === id);
    const gone = this.queue[i];
    if (!gone) return false;
    this.queue.splice(i, 1);
    this.queuedBytes -= gone.bytes;
    this.watchQueue();
    return true;
  }

  /** The session ended: nothing queued starts. */
  clear(): void {
    this.queue.length = 0;
    this.queuedBytes = 0;
  }

  private fits(): boolean {
    const unread = this.output.unread();
    if (unread > this.budget) return false;
    return this.running === 0 || unread + (this.running + 1) * this.expected <= this.budget;
  }

  private run(start: () => void): void {
    this.running++;
    start();
  }

  /** A peer that keeps sending while its requests wait is stopped from sending more than the queue holds. */
  private watchQueue(): void {
    const full = this.queue.length >= MAX_QUEUED || this.queuedBytes > this.budget;
    if (full === this.holding) return;
    this.holding = full;
    this.output.holdReading(full);
  }
}
