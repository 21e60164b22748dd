/**
 * Splits a text stream into lines, with a cap: a line longer than `max` is dropped whole (reported once as
 * an overflow) and reading resumes after its newline, so one oversized message cannot grow memory without
 * bound nor turn its tail into a second bogus message.
 */
export class NdjsonLines {
  private buf = '';
  private discarding = false;

  constructor(private readonly max: number) {}

  push(chunk: string): { lines: string[]; overflow: boolean } {
    const lines: string[] = [];
    let overflow = false;
    let rest = chunk;
    if (this.discarding) {
      const nl = rest.indexOf('\n');
      if (nl < 0) return { lines, overflow };
      this.discarding = false;
      rest = rest.slice(nl + 1);
    }
    this.buf += rest;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl).trim();
      this.buf = this.buf.slice(nl + 1);
      if (nl > this.max) overflow = true;
      else if (line) lines.push(line);
    }
    if (this.buf.length > this.max) {
      this.buf = '';
      this.discarding = true;
      overflow = true;
    }
    return { lines, overflow };
  }
}
