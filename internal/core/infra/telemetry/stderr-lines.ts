/**
 * The core's stderr, written in batches while lines come fast. A line after a quiet spell is written at
 * once; lines that follow it within the window are joined and written when the window ends. Under load
 * (a log line for every tool call) that is one write a window instead of one a line: the write cost the
 * core 10–20 µs a call, about a tenth of its work on the hop (docs/benchmarks.md). An urgent line (a
 * warning or worse) is never held back: it is written at once, after whatever is pending, so the order
 * stays the order of the calls. Pending lines are written when the process exits or dies of an uncaught
 * exception; only a SIGKILL can lose them (at most one window of info lines).
 */

/** How long lines after a written one are gathered before they are written together. */
export const STDERR_WINDOW_MS = 20;
/** Pending text above this is written at once (a flood does not wait for the window, nor grow without bound). */
const MAX_PENDING_CHARS = 64 * 1024;

export interface LineSink {
  /** Writes `text` (whole lines): held for the window if one is open, unless `urgent`. */
  line(text: string, urgent?: boolean): void;
  /** Writes what is pending now. */
  flush(): void;
}

/** A sink over `write` (the raw writer, called with one or more whole lines). */
export function batchedLines(write: (text: string) => void, windowMs = STDERR_WINDOW_MS): LineSink {
  let pending = '';
  let window: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    write(text);
  };
  const windowEnded = (): void => {
    window = undefined;
    if (pending === '') return; // quiet: the next line is written at once
    flush();
    open();
  };
  const open = (): void => {
    window = setTimeout(windowEnded, windowMs);
    window.unref();
  };
  return {
    line(text, urgent = false) {
      if (window === undefined) {
        write(text);
        open();
      } else if (urgent) {
        flush();
        write(text);
      } else {
        pending += text;
        if (pending.length > MAX_PENDING_CHARS) flush();
      }
    },
    flush,
  };
}

let core: LineSink | undefined;

/** The process's stderr as a batched sink: one per process, flushed at exit and before a crash's report. */
export function stderrLines(): LineSink {
  if (core) return core;
  const sink = batchedLines((text) => process.stderr.write(text));
  process.on('exit', sink.flush);
  // Runs before Node prints an uncaught exception: the lines that led to it come first.
  process.on('uncaughtExceptionMonitor', sink.flush);
  core = sink;
  return sink;
}
