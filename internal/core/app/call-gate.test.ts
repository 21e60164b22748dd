import { describe, expect, it } from 'vitest';
import { McpdError } from '../../shared/errors.js';
import { CallGate } from './call-gate.js';

/** A call the test ends by hand; it also ends (rejecting) when its signal aborts. */
function heldCall() {
  let release!: (v: string) => void;
  let seen: AbortSignal | undefined;
  const fn = (signal: AbortSignal) => {
    seen = signal;
    return new Promise<string>((resolve, reject) => {
      release = resolve;
      signal.addEventListener('abort', () => reject(new Error('aborted below')), { once: true });
    });
  };
  return { fn, release: (v: string) => release(v), signal: () => seen };
}

describe('CallGate', () => {
  it('counts calls in flight, refuses new ones after close, and drains when the last one ends', async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const a = heldCall();
    const running = gate.run('tools/call', undefined, a.fn);
    expect(gate.inFlight).toBe(1);
    expect(gate.close(60_000)).toBe(true);
    expect(gate.close(60_000)).toBe(false);
    await expect(gate.run('resources/read', undefined, async () => 'never')).rejects.toThrow(
      /^core X is stopping: new calls are refused \(resources\/read\)/,
    );
    const drained = gate.drain();
    a.release('done');
    expect(await running).toBe('done');
    expect(await drained).toEqual({ cancelled: 0 });
    expect(gate.inFlight).toBe(0);
  });

  it('cancels what is left when the grace period ends, with its own error', async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const a = heldCall();
    const running = gate.run('tools/call', undefined, a.fn);
    gate.close(0);
    expect(await gate.drain()).toEqual({ cancelled: 1 });
    expect(a.signal()?.aborted).toBe(true);
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpdError);
    expect((err as McpdError).reason).toBe('UNAVAILABLE');
    expect((err as Error).message).toMatch(/did not finish within the shutdown grace period/);
  });

  it("passes the caller's own cancellation through, with the caller's reason", async () => {
    const gate = new CallGate();
    const ac = new AbortController();
    const a = heldCall();
    const running = gate.run('tools/call', ac.signal, a.fn);
    ac.abort(new Error('client cancelled'));
    expect(a.signal()?.reason).toEqual(new Error('client cancelled'));
    await expect(running).rejects.toThrow('aborted below');
    expect(gate.inFlight).toBe(0);
  });

  it("cuts off a call whose caller owns the signal through the caller's abort, without a signal of its own", async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const ac = new AbortController();
    const a = heldCall();
    const running = gate.run('tools/call', ac.signal, a.fn, (reason) => ac.abort(reason));
    // The call runs on the caller's very signal.
    expect(a.signal()).toBe(ac.signal);
    gate.close(0);
    expect(await gate.drain()).toEqual({ cancelled: 1 });
    expect(ac.signal.aborted).toBe(true);
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpdError);
    expect((err as Error).message).toMatch(/did not finish within the shutdown grace period/);
    expect(gate.inFlight).toBe(0);
  });

  it("keeps the caller's reason when a caller that owns the signal cancels before a cutoff", async () => {
    const gate = new CallGate();
    const ac = new AbortController();
    const a = heldCall();
    const running = gate.run('tools/call', ac.signal, a.fn, (reason) => ac.abort(reason));
    ac.abort(new Error('client cancelled'));
    await expect(running).rejects.toThrow('aborted below');
    // A finished call's abort is forgotten: a later cutoff has nothing left to cancel.
    gate.close(0);
    expect(await gate.drain()).toEqual({ cancelled: 0 });
  });

  it('counts calls of the lane (enter/leave), refuses them once a stop began, and cuts them off at the grace end', async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const cut: Error[] = [];
    const token: number | undefined = gate.enter((reason) => {
      cut.push(reason);
      gate.leave(token!);
    });
    expect(token).toBeDefined();
    expect(gate.inFlight).toBe(1);
    gate.close(0);
    expect(gate.enter(() => {})).toBeUndefined();
    expect(await gate.drain()).toEqual({ cancelled: 1 });
    expect(cut.map((e) => e.message)).toEqual([expect.stringMatching(/did not finish within the shutdown grace period/)]);
    expect(gate.inFlight).toBe(0);
  });

  it('leaves a lane call once however often it is told to, so the count stays true', () => {
    const gate = new CallGate();
    const a = gate.enter(() => {})!;
    const b = gate.enter(() => {})!;
    gate.leave(a);
    gate.leave(a);
    expect(gate.inFlight).toBe(1);
    gate.leave(b);
    expect(gate.inFlight).toBe(0);
  });
});
