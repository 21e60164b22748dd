import { describe, expect, it } from 'vitest';
import type { CallDone, StartedCall } from '../../../contract/model/downstream.js';
import type { JsonObject } from '../../../shared/json.js';
import { CallGate } from '../call-gate.js';
import type { Core } from '../core.js';
import { admissionInterceptor } from './admission.js';
import { admissionOf, CoreDoor } from './door.js';
import type { CallEnd, Interceptor } from './interceptor.js';

/** The use cases behind the door, held by the test: each tool call waits until the test ends it. */
function heldCore() {
  const calls: { name: string; done: CallDone; cancelled?: Error }[] = [];
  const core = {
    toolCall: (_caller: string, name: string, _args: JsonObject, _opts: object, _note: object, done: CallDone): StartedCall => {
      const c: { name: string; done: CallDone; cancelled?: Error } = { name, done };
      calls.push(c);
      return {
        cancel: (err) => {
          c.cancelled = err;
          // The layer below reports a cancel its own way; the door says why the call was cut off.
          done.error(new Error('cancelled below'));
        },
      };
    },
    listTools: async () => ({ etag: 'e', tools: [{ name: 'a' }, { name: 'secret' }], collisions: [] }),
    watchTools: () => snapshots({ etag: 'e', tools: [{ name: 'a' }, { name: 'secret' }], catalog: [{ name: 'secret' }], collisions: [] }),
    resources: { read: async () => ({ contents: [] }) },
    prompts: {},
    context: { desktop: async () => ({ windows: ['w'], warnings: [], etag: 'd' }), finder: async () => ({ documents: [], totalCount: 0 }) },
  };
  return { core: core as unknown as Core, calls };
}

/** A watch that yields `snap` once. */
async function* snapshots<T>(snap: T): AsyncGenerator<T> {
  yield snap;
}

const outcome = () => {
  const seen: string[] = [];
  const done: CallDone = { result: (r) => seen.push(`result ${JSON.stringify(r)}`), error: (e) => seen.push(`error ${e.message}`) };
  return { seen, done };
};

describe('the door', () => {
  it('passes a call through every interceptor in order, and tells them how it ended in reverse order', () => {
    const log: string[] = [];
    const watch = (name: string): Interceptor => ({
      name,
      enter: (call) => {
        log.push(`${name} enter ${call.face} ${call.caller} ${call.method} ${call.target} ${call.admission}`);
        return (end: CallEnd) => log.push(`${name} end ${end.error?.message ?? 'ok'} isError=${end.isError}`);
      },
    });
    const { core, calls } = heldCore();
    const api = new CoreDoor(core, [watch('audit'), watch('policy')]).for('session');
    const o = outcome();
    api.toolCall('alice', 'fx__echo', { a: 1 }, { client: 'vscode' }, o.done);
    expect(calls.map((c) => c.name)).toEqual(['fx__echo']);
    calls[0]!.done.result({ isError: true });
    expect(o.seen).toEqual(['result {"isError":true}']);
    expect(log).toEqual([
      'audit enter session alice tools/call fx__echo core',
      'policy enter session alice tools/call fx__echo core',
      'policy end ok isError=true',
      'audit end ok isError=true',
    ]);
  });

  it('lets an interceptor refuse a call: the use case never sees it, those entered before see the refusal', () => {
    const ends: CallEnd[] = [];
    const audit: Interceptor = { name: 'audit', enter: () => (end) => ends.push(end) };
    const deny: Interceptor = { name: 'policy', enter: (call) => new Error(`${call.caller} may not call ${call.target}`) };
    const { core, calls } = heldCore();
    const o = outcome();
    new CoreDoor(core, [audit, deny]).for('grpc').toolCall('bob', 'fx__rm', {}, {}, o.done);
    expect(calls).toEqual([]);
    expect(o.seen).toEqual(['error bob may not call fx__rm']);
    expect(ends).toMatchObject([{ refused: true, error: { message: 'bob may not call fx__rm' } }]);
  });

  it("admits by each area method's declared admission: a stopping core refuses calls and reads, not lists, and cuts off what runs", async () => {
    const gate = new CallGate(() => 'core X is stopping');
    const { core, calls } = heldCore();
    const api = new CoreDoor(core, [admissionInterceptor(gate)]).for('dashboard');
    const running = outcome();
    api.toolCall('alice', 'fx__wait', {}, {}, running.done);
    expect(gate.inFlight).toBe(1);
    gate.close(0);
    const refused = outcome();
    api.toolCall('alice', 'fx__echo', {}, {}, refused.done);
    expect(refused.seen).toEqual([expect.stringMatching(/^error core X is stopping: new calls are refused \(tools\/call\)/)]);
    await expect(api.context.desktop('alice', undefined, undefined)).rejects.toThrow(/new calls are refused \(mcpd\/desktop\/read\)/);
    await expect(api.resources.read('alice', 'x://y', {})).rejects.toThrow(/new calls are refused \(resources\/read\)/);
    expect((await api.listTools('alice')).tools).toHaveLength(2);
    expect(await gate.drain()).toEqual({ cancelled: 1 });
    expect(calls[0]!.cancelled?.message).toMatch(/did not finish within the shutdown grace period/);
    expect(running.seen).toEqual([
      expect.stringMatching(/^error core X is stopping: the call did not finish within the shutdown grace period/),
    ]);
    expect(gate.inFlight).toBe(0);
  });

  it('filters lists per call where an interceptor hides entries', async () => {
    const { core } = heldCore();
    const hide: Interceptor = { name: 'policy', visible: (call, name) => !(call.caller === 'bob' && name === 'secret') };
    const door = new CoreDoor(core, [hide]);
    expect((await door.for('grpc').listTools('bob')).tools.map((t) => t.name)).toEqual(['a']);
    expect((await door.for('grpc').listTools('alice')).tools.map((t) => t.name)).toEqual(['a', 'secret']);
    // A use case answering with tool names of its own (tool search) gets the same judgement in the call's note.
    const bob = door.callOf('grpc', { method: 'tools/call', caller: 'bob', target: 'mcpd__search' });
    expect([bob.note.visible?.('a'), bob.note.visible?.('secret')]).toEqual([true, false]);
    expect(new CoreDoor(core, []).callOf('grpc', { method: 'tools/call', caller: 'bob' }).note.visible).toBeUndefined();
  });

  it("filters a watch's snapshots as it filters lists (tools and the search catalog), and a list names the client", async () => {
    const { core } = heldCore();
    const clients: Array<string | undefined> = [];
    const hide: Interceptor = {
      name: 'policy',
      visible: (call, name) => (clients.push(call.client), !(call.caller === 'bob' && name === 'secret')),
    };
    const door = new CoreDoor(core, [hide]);
    const first = await door.for('session').watchTools('bob', undefined, 'vscode').next();
    expect(first.value).toMatchObject({ tools: [{ name: 'a' }], catalog: [] });
    await door.for('session').listTools('bob', undefined, undefined, 'cursor');
    expect(new Set(clients)).toEqual(new Set(['vscode', 'cursor']));
  });

  it('passes only methods an area declares (their admission comes from the declaration)', () => {
    expect(admissionOf('mcpd/finder/query')).toBe('core');
    expect(admissionOf('tools/list')).toBe('free');
    expect(() => admissionOf('tools/frobnicate')).toThrow(/no area in internal\/contract\/areas\/ declares/);
  });
});
