/** Why a Session's reading is paused: its output is behind, or its queue of requests not yet started is full. */
export type PauseReason = 'output' | 'queue';

/**
 * Pauses a stream's reading while any reason holds and resumes it once none does, so the output gate
 * and the request queue can each pause it without one's resume undoing the other's pause.
 */
export class ReadingValve {
  private readonly reasons = new Set<PauseReason>();

  constructor(private readonly stream: { pause?(): unknown; resume?(): unknown }) {}

  hold(reason: PauseReason): void {
    const was = this.reasons.size;
    this.reasons.add(reason);
    if (was === 0) this.stream.pause?.();
  }

  release(reason: PauseReason): void {
    if (!this.reasons.delete(reason) || this.reasons.size > 0) return;
    this.stream.resume?.();
  }
}
