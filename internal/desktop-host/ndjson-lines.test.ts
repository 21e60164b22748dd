import { describe, expect, it } from 'vitest';
import { NdjsonLines } from './ndjson-lines.js';

describe('NdjsonLines', () => {
  it('splits across chunks, trims CR and blanks', () => {
    const r = new NdjsonLines(100);
    expect(r.push('{"a":1}\n{"b"')).toEqual({ lines: ['{"a":1}'], overflow: false });
    expect(r.push(':2}\r\n\n  \n{"c":3}\n')).toEqual({ lines: ['{"b":2}', '{"c":3}'], overflow: false });
  });

  it('drops an oversized line whole, reports it once, and resumes after its newline', () => {
    const r = new NdjsonLines(10);
    expect(r.push('x'.repeat(8))).toEqual({ lines: [], overflow: false });
    expect(r.push('y'.repeat(8))).toEqual({ lines: [], overflow: true });
    expect(r.push('z'.repeat(50))).toEqual({ lines: [], overflow: false }); // still the same line: silently dropped
    expect(r.push('tail\n{"ok":1}\n')).toEqual({ lines: ['{"ok":1}'], overflow: false });
  });

  it('an oversized line that arrives whole in one chunk is dropped too', () => {
    const r = new NdjsonLines(10);
    expect(r.push(`${'q'.repeat(30)}\n{"ok":2}\n`)).toEqual({ lines: ['{"ok":2}'], overflow: true });
  });
});
