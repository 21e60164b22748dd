import { describe, expect, it } from 'vitest';
import { FrameReader, MAX_FRAME_BYTES, frame } from './session-framing.js';

describe('session framing', () => {
  it('cuts frames out of chunks split anywhere, in order', () => {
    const payloads = [Buffer.from('a'), Buffer.alloc(0), Buffer.from('hello world'), Buffer.alloc(70_000, 7)];
    const wire = Buffer.concat(payloads.map(frame));
    for (const step of [1, 3, 5, 4096, wire.length]) {
      const reader = new FrameReader();
      const got: Buffer[] = [];
      for (let i = 0; i < wire.length; i += step) got.push(...reader.push(wire.subarray(i, i + step)));
      expect(got.map((b) => b.toString('hex'))).toEqual(payloads.map((b) => b.toString('hex')));
    }
  });

  it('keeps a partial frame until the rest arrives', () => {
    const reader = new FrameReader();
    const wire = frame(Buffer.from('abc'));
    expect(reader.push(wire.subarray(0, 5))).toEqual([]);
    expect(reader.push(wire.subarray(5)).map(String)).toEqual(['abc']);
  });

  it('refuses a frame longer than the limit, on both sides', () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
    expect(() => new FrameReader().push(header)).toThrow(/exceeds the 67108864-byte limit/);
    expect(() => frame({ length: MAX_FRAME_BYTES + 1 } as Uint8Array)).toThrow(/exceeds/);
  });
});
