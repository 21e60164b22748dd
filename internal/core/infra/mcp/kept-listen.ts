import { backoffDelayMs, type Backoff } from '../../../shared/backoff.js';

/** How a listen stream ended (SDK v2's McpSubscription.closed): 'local' = the core closed it. */
export type ListenEnd = 'local' | 'graceful' | 'remote';

/** The part of SDK v2's McpSubscription a kept stream needs. */
export interface ListenStream {
  readonly closed: Promise<ListenEnd>;
  close(): Promise<void>;
}

/** Re-listening waits 0.5 s, then twice as long each time up to 30 s, less up to a fifth at random. */
export const RELISTEN_BACKOFF: Backoff = { baseMs: 500, maxMs: 30_000, jitter: 0.2 };

export interface KeptListenOptions {
  /** Opens the stream again; resolves once the server acknowledged it. */
  open: () => Promise<ListenStream>;
  /** False once the session is closing or closed: nothing is re-opened then. */
  alive: () => boolean;
  /** The server ended the stream (not the core); a re-open is scheduled. */
  lost: (why: 'graceful' | 'remote') => void;
  /** A re-open was acknowledged, after `attempts` tries. */
  back: (attempts: number) => void;
  backoff?: Backoff;
  /** As Math.random (the backoff's jitter); tests pass a constant. */
  random?: () => number;
}

/**
 * One `subscriptions/listen` stream the core wants open for as long as the session lives (or until
 * `stop`). A 2026-07-28 server may end it at any time — the empty listen result on shutdown, a
 * `notifications/cancelled` for its id, a stream that just ends — and SDK v2 never re-listens by itself:
 * without this the core would stop hearing changes silently. Each end the core did not ask for is reported
 * (`lost`), then the stream is opened again with backoff until it is acknowledged (`back`).
 */
export class KeptListen {
  private current?: ListenStream;
  private timer?: ReturnType<typeof setTimeout>;
  private stopped = false;
  /** Tries since the stream was lost. */
  private attempts = 0;

  constructor(
    private readonly o: KeptListenOptions,
    first: ListenStream,
  ) {
    this.watch(first);
  }

  /** A re-open is scheduled or running (the stream is not open). */
  get retrying(): boolean {
    return !this.stopped && this.current === undefined;
  }

  /** Closes the stream and ends any retry; a re-open still in flight is closed when it lands. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const open = this.current;
    this.current = undefined;
    // Ignored: closing is best effort (the session may be gone already); the core stops listening either way.
    await open?.close().catch(() => {});
  }

  private get wanted(): boolean {
    return !this.stopped && this.o.alive();
  }

  private watch(stream: ListenStream): void {
    this.current = stream;
    // Fire and forget: `closed` never rejects, it resolves once when the stream ends.
    void stream.closed.then((why) => this.ended(stream, why));
  }

  private ended(stream: ListenStream, why: ListenEnd): void {
    if (this.current !== stream) return;
    this.current = undefined;
    // The core's own close, or the session ending (its transport closing ends every stream as 'remote').
    if (why === 'local' || !this.wanted) return;
    this.o.lost(why);
    this.schedule();
  }

  private schedule(): void {
    if (!this.wanted) return;
    this.attempts++;
    const delay = backoffDelayMs(this.attempts, this.o.backoff ?? RELISTEN_BACKOFF, this.o.random);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // Fire and forget: reopen handles its own failure by scheduling the next try.
      void this.reopen();
    }, delay);
    // A retry alone must not keep the process alive.
    this.timer.unref?.();
  }

  private async reopen(): Promise<void> {
    if (!this.wanted) return;
    let stream: ListenStream;
    try {
      stream = await this.o.open();
    } catch {
      // Swallowed: a refused or timed-out listen is the next attempt's business; `back` reports the count.
      this.schedule();
      return;
    }
    if (!this.wanted) {
      // Ignored: the stream is unwanted by now; closing it is best effort.
      await stream.close().catch(() => {});
      return;
    }
    const attempts = this.attempts;
    this.attempts = 0;
    this.watch(stream);
    this.o.back(attempts);
  }
}
