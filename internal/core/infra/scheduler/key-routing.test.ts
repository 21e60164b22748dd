import { describe, expect, it } from 'vitest';
import { DEFAULT_RUNTIME } from '../../../contract/model/profile.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import { FakeClock } from '../../../../test/support/scheduler-fake-clock.js';
import { FakeLauncher } from '../../../../test/support/scheduler-fake-launcher.js';
import { makeSpec } from '../../../../test/support/scheduler.js';
import { Instance } from './instance.js';
import { InstanceSet } from './instance-set.js';
import { KeyRouting } from './key-routing.js';
import { PoolScope } from './pool-scope.js';
import type { LogEntry } from './types.js';

/** A KeyRouting over real Instances in given states, with what it reported. */
function world(over: Partial<ServerSpec> = {}) {
  const clock = new FakeClock();
  const logs: LogEntry[] = [];
  const lost: string[] = [];
  const scope = new PoolScope('fp', makeSpec(over), {
    launcher: new FakeLauncher(clock),
    runtime: DEFAULT_RUNTIME,
    clock,
    log: (e) => logs.push(e),
    events: {
      notification: () => {},
      stderr: () => {},
      toolsChanged: () => {},
      listsToVerify: () => {},
      pinLost: (fp, key) => lost.push(`${fp} ${key}`),
      statusChanged: () => {},
    },
    newInstanceId: () => 'unused',
  });
  const instances = new InstanceSet();
  const routing = new KeyRouting(scope, instances);
  const add = (id: string, inFlight = 0) => {
    const inst = new Instance(id, 'call', clock.now());
    inst.state = 'ready';
    for (let i = 0; i < inFlight; i++) inst.take(clock.now());
    instances.add(inst);
    return inst;
  };
  /** Routes one call with `key` and takes its slot, as Admission does; undefined = it would wait. */
  const route = (key?: string, max = 1) => {
    const k = routing.keyFor(key);
    const inst = routing.choose(k, max, clock.now());
    if (!inst) return undefined;
    inst.take(clock.now());
    routing.taken(inst, k, clock.now());
    return inst.id;
  };
  return { clock, scope, instances, routing, add, route, logs, lost };
}

describe('KeyRouting', () => {
  it('picks the least-loaded usable instance with a free slot, round-robin among equals', () => {
    const w = world({ maxInstances: 3 });
    const a = w.add('a');
    w.add('b');
    const starting = w.add('c');
    starting.state = 'starting';
    expect([w.route(undefined, 2), w.route(undefined, 2)].sort()).toEqual(['a', 'b']);
    a.release(w.clock.now());
    expect(w.route(undefined, 2)).toBe('a'); // a has 0 in flight, b has 1
    expect([w.route(undefined, 2), w.route(undefined, 2)].sort()).toEqual(['a', 'b']); // the last free slot of each
    expect(w.route(undefined, 2)).toBeUndefined(); // both at maxConcurrent; the starting one takes nothing
  });

  it('keeps a stateful caller session on its instance, and makes it wait when that one is full', () => {
    const w = world({ strategy: 'stateful', maxInstances: 2 });
    w.add('a');
    w.add('b');
    const first = w.route('alice');
    expect(first).toBeDefined();
    expect(w.route('bob')).not.toBe(first);
    expect(w.route('alice')).toBeUndefined();
    const inst = w.instances.get(first ?? '');
    expect(inst?.everBound).toBe(true);
    expect(w.routing.boundKeys(inst as Instance, w.clock.now())).toEqual(['alice']);
  });

  it('routes by key only on stateful pools or for pinned keys', () => {
    const w = world({ strategy: 'stateless' });
    expect(w.routing.keyFor('alice')).toBeUndefined();
    w.routing.pin('alice');
    expect(w.routing.keyFor('alice')).toBe('alice');
  });

  it('places a pinned key on its first instance, unplaces it when that instance ends and reports the loss', () => {
    const w = world({ maxInstances: 2, maxConcurrent: 4 });
    const a = w.add('a', 1);
    w.add('b');
    w.routing.pin('sub');
    expect(w.route('sub', 4)).toBe('b');
    expect(w.route('sub', 4)).toBe('b'); // stays, though a is no busier now
    expect(w.routing.holdsPin(w.instances.get('b') as Instance)).toBe(true);
    expect(w.routing.holdsPin(a)).toBe(false);
    w.routing.instanceEnded(w.instances.get('b') as Instance, 'crash');
    expect(w.lost).toEqual(['fp sub']);
    expect(w.logs.map((l) => l.event)).toEqual(['pin.lost']);
    w.instances.delete(w.instances.get('b') as Instance);
    expect(w.route('sub', 4)).toBe('a');
  });

  it('hands back the instance only when the last holder of a pinned key lets go', () => {
    const w = world();
    w.add('a');
    w.routing.pin('k');
    w.routing.pin('k');
    expect(w.route('k')).toBe('a');
    expect(w.routing.unpin('k')).toBeUndefined();
    expect(w.routing.unpin('k')?.id).toBe('a');
    expect(w.routing.keyFor('k')).toBeUndefined();
  });
});
