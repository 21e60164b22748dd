import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { batchedLines, STDERR_WINDOW_MS } from './stderr-lines.js';

describe('batchedLines', () => {
  let writes: string[];
  const sink = () => batchedLines((t) => writes.push(t));
  beforeEach(() => {
    writes = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('writes a line after a quiet spell at once, and gathers the lines that follow it into one write', () => {
    const s = sink();
    s.line('a\n');
    expect(writes).toEqual(['a\n']);
    s.line('b\n');
    s.line('c\n');
    expect(writes).toEqual(['a\n']);
    vi.advanceTimersByTime(STDERR_WINDOW_MS);
    expect(writes).toEqual(['a\n', 'b\nc\n']);
    // The window stays open while lines come: the next one is gathered again.
    s.line('d\n');
    expect(writes).toHaveLength(2);
    vi.advanceTimersByTime(STDERR_WINDOW_MS);
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n']);
    // A window with nothing in it closes: the next line is written at once.
    vi.advanceTimersByTime(STDERR_WINDOW_MS);
    s.line('e\n');
    expect(writes).toEqual(['a\n', 'b\nc\n', 'd\n', 'e\n']);
  });

  it('writes an urgent line at once, after what is pending', () => {
    const s = sink();
    s.line('a\n');
    s.line('b\n');
    s.line('warn\n', true);
    expect(writes).toEqual(['a\n', 'b\n', 'warn\n']);
    vi.advanceTimersByTime(STDERR_WINDOW_MS);
    expect(writes).toHaveLength(3);
  });

  it('writes pending text at once when it grows past its bound, and on flush()', () => {
    const s = sink();
    s.line('first\n');
    const big = `${'x'.repeat(40 * 1024)}\n`;
    s.line(big);
    expect(writes).toHaveLength(1);
    s.line(big);
    expect(writes).toEqual(['first\n', big + big]);
    s.line('last\n');
    s.flush();
    expect(writes).toEqual(['first\n', big + big, 'last\n']);
  });
});

// The compiled module (the suite's global set-up builds dist/).
const BUILT = new URL('../../../../dist/internal/core/infra/telemetry/stderr-lines.js', import.meta.url).href;

describe('stderrLines in a process', () => {
  // A child that logs a line, then a burst held in the window, then ends one way or another.
  const child = (end: string) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { stderrLines } from ${JSON.stringify(BUILT)};
         const s = stderrLines();
         for (let i = 0; i < 5; i++) s.line('line ' + i + '\\n');
         ${end}`,
      ],
      { encoding: 'utf8' },
    );

  it('writes the held lines when the process exits', () => {
    const r = child('process.exit(3);');
    expect(r.status).toBe(3);
    expect(r.stderr).toBe('line 0\nline 1\nline 2\nline 3\nline 4\n');
  });

  it('writes the held lines before an uncaught exception is reported', () => {
    const r = child("throw new Error('boom');");
    expect(r.status).toBe(1);
    const boom = r.stderr.indexOf('boom');
    expect(boom).toBeGreaterThan(0);
    expect(r.stderr.slice(0, r.stderr.indexOf('line 4\n') + 7)).toBe('line 0\nline 1\nline 2\nline 3\nline 4\n');
    expect(r.stderr.indexOf('line 4')).toBeLessThan(boom);
  });
});
