/** Splits a byte stream into text lines (for stderr), bounding the length of any one line. */
export class LineSplitter {
  private partial = '';

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = 8192,
  ) {}

  push(chunk: Buffer | string): void {
    this.partial += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let i: number;
    while ((i = this.partial.indexOf('\n')) >= 0) {
      this.emit(this.partial.slice(0, i));
      this.partial = this.partial.slice(i + 1);
    }
    if (this.partial.length > this.maxLine) {
      this.emit(this.partial);
      this.partial = '';
    }
  }

  flush(): void {
    if (this.partial) this.emit(this.partial);
    this.partial = '';
  }

  private emit(line: string): void {
    const text = line.replace(/\r$/, '');
    this.onLine(text.length > this.maxLine ? `${text.slice(0, this.maxLine)}…` : text);
  }
}
