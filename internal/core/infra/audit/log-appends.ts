import { truncate } from 'node:fs/promises';
import { appendBytes, errorText, rotateLogFiles, sizeOf } from './log-file-io.js';

type Warn = (message: string, fields: Record<string, unknown>) => void;

/**
 * The audit log's newest file as its writer appends to it: its size (for rotation), a torn last line to
 * step over, and a failing disk reported once. What goes into the chain is the writer's; this is the file.
 */
export class LogAppends {
  /** Bytes in the newest file, as far as this process knows. */
  size = 0;
  /** The file ends without a newline (a torn last line): the next append starts a line of its own. */
  private torn = false;
  private failing = false;

  constructor(
    private readonly file: string,
    private readonly warn?: Warn,
  ) {}

  /** The file as found when the log was opened. */
  opened(end: { size: number; torn: boolean }): void {
    this.size = end.size;
    this.torn = end.torn;
  }

  /**
   * One append; undefined when written, else what failed. A failure (a full disk) takes back what it may have
   * written and is reported once. The file is opened by its path for each batch, so a log moved, replaced or
   * relinked by its operator is followed.
   */
  async append(text: string): Promise<string | undefined> {
    const file = this.file;
    // After a failure the file may be another one now (freed space, a new mount): measure it again.
    if (this.failing) this.size = await sizeOf(file).catch(() => this.size);
    const data = Buffer.from(this.torn ? `\n${text}` : text);
    try {
      await appendBytes(file, data);
      this.size += data.length;
      this.torn = false;
      if (this.failing) this.warn?.('the audit log is written again', { file });
      this.failing = false;
      return undefined;
    } catch (e) {
      const error = `writing the audit log failed: ${errorText(e)}`;
      // Best effort: a device (/dev/full) or a vanished file cannot be truncated, and the failure is already reported.
      await truncate(file, this.size).catch(() => {});
      if (!this.failing) this.warn?.(`${error}; calls go on, and the entries lost are recorded once writing works again`, { file });
      this.failing = true;
      return error;
    }
  }

  /** A new file for the log (log-file-io.ts, rotateLogFiles): the first seq of the log's oldest file now, if it changed. */
  async rotate(keep: number): Promise<number | undefined> {
    try {
      const first = await rotateLogFiles(this.file, keep);
      this.size = 0;
      return first;
    } catch (e) {
      this.warn?.(`rotating the audit log failed: ${errorText(e)}; it grows past maxBytes until it can`, { file: this.file });
      this.size = 0; // write on rather than retry the rotation for every entry
      return undefined;
    }
  }
}
