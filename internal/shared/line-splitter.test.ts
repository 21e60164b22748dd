import { describe, expect, it } from 'vitest';
import { LineSplitter, type LineSplitterOptions } from './line-splitter.js';

/** Pushes each chunk and reads every line after each, as the splitter's users do. */
function split(o: LineSplitterOptions, ...chunks: string[]): { lines: string[]; dropped: number[] } {
  const s = new LineSplitter(o);
  const lines: string[] = [];
  const dropped: number[] = [];
  for (const c of chunks) {
    s.push(Buffer.from(c));
    for (let l = s.next(); l !== null; l = s.next()) lines.push(l);
    dropped.push(s.takeDropped());
  }
  return { lines, dropped };
}

describe('LineSplitter', () => {
  it('splits across and within chunks, LF and CRLF, keeping empty lines', () => {
    const o = { maxLineBytes: 100, overLong: 'throw' } as const;
    expect(split(o, 'a\r\nb', 'c\n\nd\n').lines).toEqual(['a', 'bc', '', 'd']);
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const bytes = Buffer.from('é漢\n');
    const s = new LineSplitter({ maxLineBytes: 100, overLong: 'throw' });
    s.push(bytes.subarray(0, 3));
    expect(s.next()).toBeNull();
    s.push(bytes.subarray(3));
    expect(s.next()).toBe('é漢');
  });

  it('throw: refuses once what it holds passes the bound, then starts afresh', () => {
    const s = new LineSplitter({ maxLineBytes: 10, overLong: 'throw' });
    s.push('12345678');
    expect(() => s.push('901')).toThrow('a line exceeded 10 bytes without a newline');
    s.push('ok\n');
    expect(s.next()).toBe('ok');
  });

  it('truncate: keeps the head of a long line with an ellipsis, skips its rest, goes on after its newline', () => {
    const o = { maxLineBytes: 5, overLong: 'truncate' } as const;
    expect(split(o, 'ab\n1234', '5678', '90', 'xyz\nc\n').lines).toEqual(['ab', '12345…', 'c']);
    expect(split(o, 'abcdefgh\nok\n').lines).toEqual(['abcde…', 'ok']);
  });

  it('truncate: the rest of a stream that ends without a newline is its last line, cut too', () => {
    const s = new LineSplitter({ maxLineBytes: 5, overLong: 'truncate' });
    s.push('a\nbcd');
    expect(s.next()).toBe('a');
    expect(s.next()).toBeNull();
    expect(s.rest()).toBe('bcd');
    expect(s.rest()).toBeNull();
    s.push('1234567');
    expect(s.next()).toBe('12345…');
    expect(s.rest()).toBeNull(); // the rest of that line was skipped
  });

  it('drop: leaves a long line out whole, counts it once, and resumes after its newline', () => {
    const o = { maxLineBytes: 10, overLong: 'drop' } as const;
    expect(split(o, 'x'.repeat(8), 'y'.repeat(8), 'z'.repeat(50), 'tail\n{"ok":1}\n')).toEqual({
      lines: ['{"ok":1}'],
      dropped: [0, 1, 0, 0],
    });
    expect(split(o, `${'q'.repeat(30)}\n{"ok":2}\n`)).toEqual({ lines: ['{"ok":2}'], dropped: [1] });
  });
});
