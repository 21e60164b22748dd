import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../contract/control/control-areas.js';
import { LogBus } from '../telemetry/log-bus.js';
import { LogRelay, RELAY_CAPACITY } from './log-relay.js';

const entry = (i: number): LogRecord => ({ time: i, level: 'info', source: 'core', event: 'e', message: `m${i}` });

function sink(writable: () => boolean) {
  const batches: { entries: LogRecord[]; dropped: number }[] = [];
  let drain: (() => void) | undefined;
  return {
    batches,
    drain: () => drain?.(),
    sink: {
      writable,
      send: (b: { entries: LogRecord[]; dropped: number }) => void batches.push(b),
      onDrain: (cb: () => void) => ((drain = cb), () => (drain = undefined)),
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

describe('LogRelay', () => {
  it('moves every entry, in order, in batches', async () => {
    const bus = new LogBus({ capacity: 10_000 });
    const s = sink(() => true);
    const relay = new LogRelay(
      bus.subscribe((e) => e.record),
      s.sink,
    );
    for (let i = 0; i < 1200; i++) bus.publish({ record: entry(i) });
    await until(() => s.batches.reduce((n, b) => n + b.entries.length, 0) === 1200);
    expect(s.batches.flatMap((b) => b.entries.map((e) => e.time))).toEqual([...Array(1200).keys()]);
    expect(s.batches.length).toBeLessThan(10);
    expect(s.batches.every((b) => b.dropped === 0)).toBe(true);
    relay.stop();
    expect(bus.subscriberCount).toBe(0);
  });

  it('holds entries while the connection is busy, drops the oldest beyond its bound, and says how many', async () => {
    const bus = new LogBus({ capacity: 100_000 });
    let open = false;
    const s = sink(() => open);
    const relay = new LogRelay(
      bus.subscribe((e) => e.record),
      s.sink,
    );
    const total = RELAY_CAPACITY + 700;
    for (let i = 0; i < total; i++) bus.publish({ record: entry(i) });
    await new Promise((r) => setImmediate(r));
    await until(() => bus.subscriberCount === 1);
    expect(s.batches).toEqual([]);
    open = true;
    s.drain();
    await until(() => s.batches.reduce((n, b) => n + b.entries.length, 0) >= RELAY_CAPACITY);
    const got = s.batches.flatMap((b) => b.entries.map((e) => e.time));
    expect(got.length).toBe(RELAY_CAPACITY);
    expect(got[0]).toBe(700);
    expect(s.batches[0]?.dropped).toBe(700);
    relay.stop();
  });
});
