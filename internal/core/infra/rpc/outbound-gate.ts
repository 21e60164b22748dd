/** What the gate needs of a Session stream: grpc-js duplex streams and FramedSessionStream both have it. */
export interface GatedStream {
  readonly writableLength?: number;
  pause?(): unknown;
  resume?(): unknown;
  once(event: 'drain', listener: () => void): unknown;
}

/** Default bytes a Session may have unread by its peer before the core stops reading it and drops notifications. */
export const DEFAULT_SESSION_OUTBOUND_BYTES = 8 * 1024 * 1024;

export interface GateEvents {
  /** The peer stopped keeping up: reading is paused until it drains. */
  paused(buffered: number): void;
  /** It caught up; `dropped` notifications (logs, progress, list changes) were lost meanwhile. */
  resumed(dropped: number): void;
}

/**
 * Bounds what one Session holds for a peer that does not read. Over the limit, the core
 * stops reading the peer's requests (so their answers cannot pile up) and drops notifications, counting
 * them; answers to requests already read are still sent. Everything resumes on 'drain'.
 */
export class OutboundGate {
  private paused = false;
  private dropped = 0;

  constructor(
    private readonly stream: GatedStream,
    private readonly maxBytes: number,
    private readonly events: GateEvents,
  ) {}

  /** False when a droppable message must be dropped now. */
  admit(droppable: boolean): boolean {
    if (!droppable || !this.over()) return true;
    this.dropped++;
    return false;
  }

  /** After each write: pauses reading once the peer is too far behind. */
  wrote(): void {
    if (this.paused || !this.over()) return;
    this.paused = true;
    this.stream.pause?.();
    this.events.paused(this.stream.writableLength ?? 0);
    this.stream.once('drain', () => {
      this.paused = false;
      const dropped = this.dropped;
      this.dropped = 0;
      this.events.resumed(dropped);
      this.stream.resume?.();
    });
  }

  private over(): boolean {
    return (this.stream.writableLength ?? 0) > this.maxBytes;
  }
}
