import { EventEmitter } from 'node:events';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { GrpcOutputBudget } from './grpc-output-budget.js';

/**
 * A server stream as grpc-js gives it, on the HTTP/2 session `session`: what is written waits until the
 * test lets the peer take it (`take`), as when the client does not read.
 */
class Stream extends EventEmitter {
  readonly written: unknown[] = [];
  private readonly pending: (() => void)[] = [];
  readonly call: { stream: { session: object } };

  constructor(session: object) {
    super();
    this.call = { stream: { session } };
  }

  write(msg: unknown, cb: () => void): boolean {
    this.written.push(msg);
    this.pending.push(cb);
    return true;
  }

  /** The peer takes the oldest `n` messages. */
  take(n = this.pending.length): void {
    for (const cb of this.pending.splice(0, n)) cb();
  }

  as(): ServerWritableStream<unknown, unknown> {
    return this as unknown as ServerWritableStream<unknown, unknown>;
  }
}

const never = new AbortController().signal;

describe('GrpcOutputBudget', () => {
  it('drops a call stream’s progress while the stream is over its budget, never its answer', async () => {
    const s = new Stream({});
    const out = await new GrpcOutputBudget(100).admit(s.as(), never);
    out.progress('p1', 60); // 92 unread with framing: within 100
    out.progress('p2', 60); // written (92 ≤ 100), and now 184 unread
    out.progress('p3', 10); // dropped: the stream is over its budget
    out.result('r', 500);
    expect(s.written).toEqual(['p1', 'p2', 'r']);
    s.take();
    out.progress('late', 10);
    expect(s.written.at(-1)).toBe('late');
  });

  it('drops progress while another stream of the connection holds it over the budget', async () => {
    const session = {};
    const budget = new GrpcOutputBudget(100);
    const a = new Stream(session);
    const b = new Stream(session);
    const outA = await budget.admit(a.as(), never);
    const outB = await budget.admit(b.as(), never);
    outA.result('big', 200);
    outB.progress('p', 1);
    expect(b.written).toEqual([]);
    a.take();
    outB.progress('p', 1);
    expect(b.written).toEqual(['p']);
  });

  it('a subscription stream waits for room; streams woken together write only while it lasts', async () => {
    const session = {};
    const held: string[] = [];
    const budget = new GrpcOutputBudget(100, { streamsHeld: () => held.push('held') });
    const big = new Stream(session);
    expect(await budget.stream(big.as()).send(() => 'x'.repeat(200), never)).toBe(true);
    const others = Array.from({ length: 5 }, () => new Stream(session));
    const sends = others.map((s) => budget.stream(s.as()).send(() => 'y'.repeat(40), never));
    await settle();
    expect(others.map((s) => s.written.length)).toEqual([0, 0, 0, 0, 0]);
    big.take();
    await settle();
    // 72 bytes each with framing: the first fits, the second too (72 ≤ 100), the third waits.
    expect(others.map((s) => s.written.length)).toEqual([1, 1, 0, 0, 0]);
    for (const s of others) s.take();
    await settle();
    expect(others.map((s) => s.written.length)).toEqual([1, 1, 1, 1, 0]);
    for (const s of others) s.take();
    expect(await Promise.all(sends)).toEqual([true, true, true, true, true]);
    expect(held).toEqual(['held']);
  });

  it('a cancelled stream gives back what it held: waiting streams write and queued calls start', async () => {
    const session = {};
    const budget = new GrpcOutputBudget(100);
    const gone = new Stream(session);
    const answered = await budget.admit(gone.as(), never);
    answered.result('r', 200);
    const waiting = new Stream(session);
    const send = budget.stream(waiting.as()).send(() => 'w', never);
    let started = false;
    const queued = budget.admit(new Stream(session).as(), never).then(() => (started = true));
    await settle();
    expect([waiting.written.length, started]).toEqual([0, false]);
    // grpc-js never calls back a write of a cancelled call: without giving back, the connection stays over for good.
    gone.emit('cancelled');
    expect(await send).toBe(true);
    await queued;
    expect(started).toBe(true);
  });

  it('a stream cancelled while it waits writes nothing', async () => {
    const session = {};
    const budget = new GrpcOutputBudget(100);
    const big = new Stream(session);
    await budget.stream(big.as()).send(() => 'x'.repeat(200), never);
    const ac = new AbortController();
    const s = new Stream(session);
    const send = budget.stream(s.as()).send(() => 'never', ac.signal);
    ac.abort();
    expect(await send).toBe(false);
    big.take();
    expect(s.written).toEqual([]);
  });
});

/** Lets every pending promise continuation run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
