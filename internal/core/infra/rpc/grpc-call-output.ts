import { WeighedStream } from './grpc-connection-output.js';

/** One call's writes (progress, then its answer), weighed against its stream's and its connection's budget. */
export class CallOutput extends WeighedStream {
  private answered = false;

  /** A progress message: dropped while this stream or its connection is over the budget. */
  progress(msg: unknown, bytes: number): void {
    if (this.over) return;
    this.write(msg, bytes);
  }

  /** The call's answer (always sent); the connection's queued calls may start as it drains. */
  result(msg: unknown, bytes: number): void {
    this.write(msg, bytes);
    this.done(bytes);
  }

  /** The call ended without an answer written (an error): it no longer counts as running. */
  done(bytes = 0): void {
    if (this.answered) return;
    this.answered = true;
    this.conn.admission.answered(bytes);
  }
}
