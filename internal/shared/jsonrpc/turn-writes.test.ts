import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WriteBatcher } from './turn-writes.js';
import { severalLines } from './line-reader.js';

/** A real Writable that records each system-call-sized hand-over: one entry per _write or _writev. */
function recordingStream() {
  const handovers: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      handovers.push([chunk.toString()]);
      cb();
    },
    writev(chunks, cb) {
      handovers.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      cb();
    },
  });
  return { stream, handovers };
}

const turnEnd = () => new Promise<void>((r) => setImmediate(r));

describe('TurnWrites', () => {
  it('sends a lone write at once', () => {
    const { stream, handovers } = recordingStream();
    new WriteBatcher().writer(stream).write('a');
    expect(handovers).toEqual([['a']]);
  });

  it("sends the first write of a turn at once and the rest of the turn's together", async () => {
    const { stream, handovers } = recordingStream();
    const w = new WriteBatcher().writer(stream);
    w.write('a');
    w.write('b');
    await Promise.resolve();
    w.write('c');
    expect(handovers).toEqual([['a']]);
    await turnEnd();
    expect(handovers).toEqual([['a'], ['b', 'c']]);
  });

  it('holds every write of a read that carried several messages, microtasks included, and sends each stream once', async () => {
    const one = recordingStream();
    const two = recordingStream();
    const batcher = new WriteBatcher();
    const a = batcher.writer(one.stream);
    const b = batcher.writer(two.stream);
    batcher.holdWritesOfThisRead();
    a.write('1');
    b.write('x');
    // Continuations the read's messages started (a call's handler after a few awaits).
    void Promise.resolve()
      .then(() => a.write('2'))
      .then(() => Promise.resolve())
      .then(() => b.write('y'));
    expect(one.handovers).toEqual([]);
    expect(two.handovers).toEqual([]);
    await turnEnd();
    expect(one.handovers).toEqual([['1', '2']]);
    expect(two.handovers).toEqual([['x', 'y']]);
    // The hold ends with that work: a later lone write goes at once again.
    a.write('3');
    expect(one.handovers).toEqual([['1', '2'], ['3']]);
  });

  it("holds only its own batcher's streams: a read in one process part does not delay another's writes", async () => {
    const mine = recordingStream();
    const other = recordingStream();
    const batcher = new WriteBatcher();
    const a = batcher.writer(mine.stream);
    const b = new WriteBatcher().writer(other.stream);
    batcher.holdWritesOfThisRead();
    a.write('1');
    b.write('x');
    expect(mine.handovers).toEqual([]);
    expect(other.handovers).toEqual([['x']]);
    await turnEnd();
    expect(mine.handovers).toEqual([['1']]);
  });
});

describe('severalLines', () => {
  it('tells a chunk that completes two or more lines', () => {
    expect(severalLines(Buffer.from('{}\n'))).toBe(false);
    expect(severalLines(Buffer.from('{"a":'))).toBe(false);
    expect(severalLines(Buffer.from('1}\n{}\n'))).toBe(true);
    expect(severalLines(Buffer.from('{}\n{}\n{"b"'))).toBe(true);
  });
});
