import { describe, expect, it } from 'vitest';
import { CallGate } from './call-gate.js';

describe('CallGate', () => {
  it('counts calls in flight, refuses new ones after close, and drains when the last one ends', async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const token = gate.enter(() => {});
    expect(token).toBeDefined();
    expect(gate.inFlight).toBe(1);
    expect(gate.close(60_000)).toBe(true);
    expect(gate.close(60_000)).toBe(false);
    expect(gate.enter(() => {})).toBeUndefined();
    expect(gate.refusal('resources/read').message).toMatch(/^core X is stopping: new calls are refused \(resources\/read\)/);
    expect(gate.refusal('resources/read').reason).toBe('UNAVAILABLE');
    const drained = gate.drain();
    gate.leave(token!);
    expect(await drained).toEqual({ cancelled: 0 });
    expect(gate.inFlight).toBe(0);
  });

  it('counts calls (enter/leave), refuses them once a stop began, and cuts them off at the grace end', async () => {
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

  it('leaves a call once however often it is told to, so the count stays true', () => {
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
