import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../contract/control/control-areas.js';
import { LogBus, type BusEntry } from './log-bus.js';
import { coreEntry, tapLog } from './log-tap.js';

const entry = (message: string, level: LogRecord['level'] = 'info'): BusEntry => ({
  record: { time: 1, level, source: 'core', event: 'test', message },
});
const all = (e: BusEntry) => e.record;

async function take(it: AsyncIterableIterator<LogRecord>, n: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

describe('LogBus', () => {
  it('delivers in order to every reader', async () => {
    const bus = new LogBus();
    const a = bus.subscribe(all);
    const b = bus.subscribe(all);
    bus.publish(entry('one'));
    bus.publish(entry('two'));
    expect((await take(a, 2)).map((r) => r.message)).toEqual(['one', 'two']);
    expect((await take(b, 2)).map((r) => r.message)).toEqual(['one', 'two']);
  });

  it('keeps a slow reader bounded: the oldest go, the reader is told how many, the drops are counted', async () => {
    let dropped = 0;
    const bus = new LogBus({ capacity: 3, onDrop: (n) => (dropped += n) });
    const slow = bus.subscribe(all);
    for (let i = 0; i < 10; i++) bus.publish(entry(`m${i}`));
    expect(dropped).toBe(7);
    const got = await take(slow, 4);
    expect(got[0]).toMatchObject({ event: 'logs.dropped', level: 'warning', fields: { dropped: 7 } });
    expect(got.slice(1).map((r) => r.message)).toEqual(['m7', 'm8', 'm9']);
  });

  it('applies the reader view: entries it rejects are neither queued nor counted as drops', async () => {
    let dropped = 0;
    const bus = new LogBus({ capacity: 2, onDrop: (n) => (dropped += n) });
    const errorsOnly = bus.subscribe((e) => (e.record.level === 'error' ? e.record : undefined));
    for (let i = 0; i < 50; i++) bus.publish(entry(`noise${i}`));
    bus.publish(entry('bad', 'error'));
    expect(dropped).toBe(0);
    expect((await take(errorsOnly, 1))[0]?.message).toBe('bad');
  });

  it('serves the backlog to late readers and ends readers on abort and on close', async () => {
    const bus = new LogBus({ backlog: 2 });
    bus.publish(entry('a'));
    bus.publish(entry('b'));
    bus.publish(entry('c'));
    expect(bus.recent(all).map((r) => r.message)).toEqual(['b', 'c']);
    const ac = new AbortController();
    const late = bus.subscribe(all, { backlog: true, signal: ac.signal });
    expect(bus.subscriberCount).toBe(1);
    expect((await take(late, 2)).map((r) => r.message)).toEqual(['b', 'c']);
    const pending = late.next();
    ac.abort();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(bus.subscriberCount).toBe(0);
    const other = bus.subscribe(all);
    bus.close();
    expect((await other.next()).done).toBe(true);
  });

  it('calls taps synchronously and survives a throwing one', () => {
    const bus = new LogBus();
    const seen: string[] = [];
    bus.tap(() => {
      throw new Error('boom');
    });
    bus.tap((e) => seen.push(e.record.message));
    bus.publish(entry('x'));
    expect(seen).toEqual(['x']);
  });
});

describe('tapLog', () => {
  it('writes through the stderr logger and publishes every level, fingerprint and caller lifted out', () => {
    const bus = new LogBus();
    const written: string[] = [];
    const log = tapLog((level, event) => written.push(`${level} ${event}`), bus);
    log('debug', 'instance.start', { fingerprint: 'fp1', instance: 'echo-1', message: 'starting', cause: 'call', error: new Error('why') });
    expect(written).toEqual(['debug instance.start']);
    const [r] = bus.recent((e) => (e.fingerprint === 'fp1' ? e.record : undefined));
    expect(r).toMatchObject({
      level: 'debug',
      source: 'core',
      event: 'instance.start',
      instance: 'echo-1',
      message: 'starting',
      fields: { cause: 'call', error: 'why' },
    });
    expect(coreEntry('info', 'caller attached', { caller: 'c1' }).caller).toBe('c1');
  });
});
