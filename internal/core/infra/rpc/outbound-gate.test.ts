import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { OutboundGate } from './outbound-gate.js';

/** A stream whose unread byte count the test sets, as a socket's grows when its peer does not read. */
class Pipe extends EventEmitter {
  writableLength = 0;
  pausedCount = 0;
  resumedCount = 0;
  pause() {
    this.pausedCount++;
  }
  resume() {
    this.resumedCount++;
  }
}

describe('OutboundGate', () => {
  it('pauses reading and drops notifications while the peer is behind, then resumes and reports the count', () => {
    const pipe = new Pipe();
    const seen: string[] = [];
    const gate = new OutboundGate(pipe, 100, { paused: (b) => seen.push(`paused ${b}`), resumed: (d) => seen.push(`resumed ${d}`) });
    expect(gate.admit(true)).toBe(true);
    pipe.writableLength = 150;
    gate.wrote();
    gate.wrote();
    expect(pipe.pausedCount).toBe(1);
    expect([gate.admit(true), gate.admit(true), gate.admit(false)]).toEqual([false, false, true]);
    pipe.writableLength = 0;
    pipe.emit('drain');
    expect(pipe.resumedCount).toBe(1);
    expect(seen).toEqual(['paused 150', 'resumed 2']);
    expect(gate.admit(true)).toBe(true);
  });
});
