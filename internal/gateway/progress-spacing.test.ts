import { describe, expect, it } from 'vitest';
import { PIPE_READ_BYTES, ProgressSpacing } from './progress-spacing.js';

const progress = (id: number, n: number) =>
  `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t${id}","progress":${n}}}\n`;
const answer = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{}}\n`;

/** Where each line of `stream` ends (the offset of its newline). */
function lineEnds(stream: string): number[] {
  const ends: number[] = [];
  for (let i = stream.indexOf('\n'); i !== -1; i = stream.indexOf('\n', i + 1)) ends.push(i);
  return ends;
}

describe('ProgressSpacing', () => {
  it('an answer right after its progress ends more than one pipe read after that progress, and still parses', () => {
    const s = new ProgressSpacing();
    const lines = [progress(1, 1), progress(1, 2)];
    for (const l of lines) s.progress(1, l);
    const out = s.answer(1, answer(1));
    const stream = [...lines, out].join('');
    const [, lastProgress, theAnswer] = lineEnds(stream);
    expect(theAnswer! - lastProgress!).toBeGreaterThanOrEqual(PIPE_READ_BYTES);
    expect(JSON.parse(out as string)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('pads a Buffer answer the same way', () => {
    const s = new ProgressSpacing();
    s.progress(7, progress(7, 1));
    const out = s.answer(7, Buffer.from(answer(7)));
    expect(Buffer.isBuffer(out)).toBe(true);
    expect(out.length).toBe(PIPE_READ_BYTES);
    expect(JSON.parse(out.toString())).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('counts other lines written in between: enough of them and the answer goes as it is', () => {
    const s = new ProgressSpacing();
    s.progress(1, progress(1, 1));
    const filler = `{"jsonrpc":"2.0","id":99,"result":{"x":"${'y'.repeat(PIPE_READ_BYTES)}"}}\n`;
    expect(s.other(filler)).toBe(filler);
    expect(s.answer(1, answer(1))).toBe(answer(1));
  });

  it('leaves answers alone when their request had no progress, and forgets a cancelled request', () => {
    const s = new ProgressSpacing();
    expect(s.answer(3, answer(3))).toBe(answer(3));
    s.progress(4, progress(4, 1));
    s.forget(4);
    expect(s.answer(4, answer(4))).toBe(answer(4));
  });

  it('keeps requests apart: the answer of one without progress is not padded for another', () => {
    const s = new ProgressSpacing();
    s.progress(1, progress(1, 1));
    expect(s.answer(2, answer(2))).toBe(answer(2));
    expect((s.answer(1, answer(1)) as string).length).toBeGreaterThan(answer(1).length);
  });
});
