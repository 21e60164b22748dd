import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeptListen, RELISTEN_BACKOFF } from './kept-listen.js';
import { FakeListenStream } from '../../../../test/support/fake-listen-stream.js';

// The retry state machine on its own, on a fake clock: the streams stand in for SDK v2's McpSubscription
// (test/e2e/listen-lost.test.ts runs the real one against a 2026-07-28 server).

/** A KeptListen over scripted opens, recording what it reports. */
function harness() {
  const events: string[] = [];
  const opened: FakeListenStream[] = [];
  /** What each open does, in turn: 'ok' acknowledges, 'fail' is refused, a promise waits for the test. */
  const script: ('ok' | 'fail' | Promise<void>)[] = [];
  let alive = true;
  const open = vi.fn(async () => {
    const step = script.shift() ?? 'ok';
    if (step === 'fail') throw new Error('refused');
    if (step !== 'ok') await step;
    const s = new FakeListenStream();
    opened.push(s);
    return s;
  });
  const first = new FakeListenStream();
  const kept = new KeptListen(
    {
      open,
      alive: () => alive,
      lost: (why) => events.push(`lost ${why}`),
      back: (n) => events.push(`back ${n}`),
      random: () => 0,
    },
    first,
  );
  return { kept, first, open, opened, script, events, die: () => (alive = false) };
}

describe('KeptListen', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a stream the server ends gracefully is reported once and opened again after the first backoff', async () => {
    const h = harness();
    h.first.end('graceful');
    await vi.advanceTimersByTimeAsync(0);
    expect(h.events).toEqual(['lost graceful']);
    expect(h.kept.retrying).toBe(true);
    await vi.advanceTimersByTimeAsync(RELISTEN_BACKOFF.baseMs - 1);
    expect(h.open).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(h.open).toHaveBeenCalledTimes(1);
    expect(h.events).toEqual(['lost graceful', 'back 1']);
    expect(h.kept.retrying).toBe(false);
  });

  it('refused re-opens back off exponentially, and back says how many tries it took', async () => {
    const h = harness();
    h.script.push('fail', 'fail', 'ok');
    h.first.end('remote');
    await vi.advanceTimersByTimeAsync(500);
    expect(h.open).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(h.open).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.open).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(h.open).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.open).toHaveBeenCalledTimes(3);
    expect(h.events).toEqual(['lost remote', 'back 3']);
  });

  it('no delay exceeds the cap however long the server refuses', async () => {
    const h = harness();
    h.script.push(...Array<'fail'>(12).fill('fail'));
    h.first.end('remote');
    // 0.5 + 1 + 2 + 4 + 8 + 16 s, then 30 s each.
    await vi.advanceTimersByTimeAsync(31_500);
    expect(h.open).toHaveBeenCalledTimes(6);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(h.open).toHaveBeenCalledTimes(7);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(h.open).toHaveBeenCalledTimes(8);
    expect(h.events).toEqual(['lost remote']);
  });

  it('a re-opened stream that ends again is lost again, and the backoff starts over', async () => {
    const h = harness();
    h.script.push('fail', 'ok', 'ok');
    h.first.end('graceful');
    await vi.advanceTimersByTimeAsync(1500);
    expect(h.events).toEqual(['lost graceful', 'back 2']);
    h.opened[0]!.end('remote');
    await vi.advanceTimersByTimeAsync(500);
    expect(h.events).toEqual(['lost graceful', 'back 2', 'lost remote', 'back 1']);
  });

  it('the core’s own close is no loss: nothing is reported or re-opened', async () => {
    const h = harness();
    h.first.end('local');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.events).toEqual([]);
    expect(h.open).not.toHaveBeenCalled();
  });

  it('a stream ended by the session ending is not re-opened', async () => {
    const h = harness();
    h.die();
    h.first.end('remote');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.events).toEqual([]);
    expect(h.open).not.toHaveBeenCalled();
  });

  it('retries stop when the session ends during the backoff', async () => {
    const h = harness();
    h.script.push('fail');
    h.first.end('graceful');
    await vi.advanceTimersByTimeAsync(500);
    expect(h.open).toHaveBeenCalledTimes(1);
    h.die();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.open).toHaveBeenCalledTimes(1);
    expect(h.events).toEqual(['lost graceful']);
  });

  it('stop during the backoff ends the retries', async () => {
    const h = harness();
    h.first.end('graceful');
    await vi.advanceTimersByTimeAsync(0);
    await h.kept.stop();
    expect(h.kept.retrying).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.open).not.toHaveBeenCalled();
  });

  it('stop while a re-open is in flight closes the stream when it lands, and it is not reported back', async () => {
    const h = harness();
    let ack!: () => void;
    h.script.push(new Promise<void>((r) => (ack = r)));
    h.first.end('remote');
    await vi.advanceTimersByTimeAsync(500);
    expect(h.open).toHaveBeenCalledTimes(1);
    await h.kept.stop();
    ack();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.opened[0]!.closedBy).toBe('local');
    expect(h.events).toEqual(['lost remote']);
  });

  it('stop closes the open stream without reporting a loss', async () => {
    const h = harness();
    await h.kept.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.first.closedBy).toBe('local');
    expect(h.events).toEqual([]);
  });
});
