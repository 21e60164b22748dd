import { describe, expect, it } from 'vitest';
import { settle } from '../../../../test/support/scheduler-fake-clock.js';
import { FP, harness, track } from '../../../../test/support/scheduler.js';
import { must } from '../../../shared/must.js';

/** Which caller sessions a server→client request from an instance may belong to. */
describe('PoolManager.callersOf and notifyServers', () => {
  const instanceIds = (h: Awaited<ReturnType<typeof harness>>) => must(h.mgr.status()[0], 'the pool status').instances.map((i) => i.id);

  it('names the routing keys with calls in flight, oldest call first, and forgets them when the calls end', async () => {
    const h = await harness({ minReady: 1, maxConcurrent: 4, strategy: 'stateless' });
    const id = must(instanceIds(h)[0], 'an instance');
    expect(h.mgr.callersOf(id)).toEqual([]);
    track(h.mgr.callTool(FP, 't', {}, { routingKey: 'session-b' }));
    await settle();
    track(h.mgr.callTool(FP, 't', {}, { routingKey: 'session-a' }));
    track(h.mgr.callTool(FP, 't', {}, { routingKey: 'session-b' }));
    track(h.mgr.callTool(FP, 't', {}));
    await settle();
    // The call without a key counts too, under a key of its own that no session has.
    expect(h.mgr.callersOf(id)).toEqual(['session-b', 'session-a', expect.stringMatching(/^mcpd\/anonymous-call:/)]);
    must(h.launcher.calls[0], 'h.launcher.calls[0]').resolve({}); // b's first call ends; its second still runs, a's is now the oldest
    await settle();
    expect(h.mgr.callersOf(id)).toEqual(['session-a', 'session-b', expect.stringMatching(/^mcpd\/anonymous-call:/)]);
    must(h.launcher.calls[1], 'h.launcher.calls[1]').resolve({});
    must(h.launcher.calls[2], 'h.launcher.calls[2]').resolve({});
    must(h.launcher.calls[3], 'h.launcher.calls[3]').resolve({});
    await settle();
    expect(h.mgr.callersOf(id)).toEqual([]);
    expect(h.mgr.callersOf('no-such-instance')).toEqual([]);
  });

  it("leaves out the listings the core makes for its own cache: a server request during one is still its caller's", async () => {
    const h = await harness({ minReady: 1, maxConcurrent: 4, strategy: 'stateless' });
    const id = must(instanceIds(h)[0], 'an instance');
    track(h.mgr.callTool(FP, 't', {}, { routingKey: 'session-a' }));
    track(h.mgr.request(FP, 'prompts/list', {}, { forCache: true }));
    track(h.mgr.request(FP, 'resources/list', { cursor: 'c2' }, { forCache: true }));
    await settle();
    expect(h.launcher.calls.map((c) => c.method)).toEqual(['tools/call', 'prompts/list', 'resources/list']);
    expect(h.mgr.callersOf(id)).toEqual(['session-a']);
    // A listing the caller's call outlives ends without leaving anything behind either.
    must(h.launcher.calls[1], 'the prompts listing').resolve({ prompts: [] });
    must(h.launcher.calls[0], 'the call').resolve({});
    await settle();
    expect(h.mgr.callersOf(id)).toEqual([]);
  });

  it('keeps a failed call from leaving its key behind', async () => {
    const h = await harness({ minReady: 1, strategy: 'stateless' });
    const id = must(instanceIds(h)[0], 'an instance');
    const call = track(h.mgr.callTool(FP, 't', {}, { routingKey: 's1' }));
    await settle();
    expect(h.mgr.callersOf(id)).toEqual(['s1']);
    must(h.launcher.calls[0], 'h.launcher.calls[0]').reject(new Error('boom'));
    await settle();
    expect(call.error?.message).toBe('boom');
    expect(h.mgr.callersOf(id)).toEqual([]);
  });

  it('names only the sessions in flight while any call is, not the ones merely bound', async () => {
    const h = await harness({ minReady: 1, maxConcurrent: 4, strategy: 'stateful' });
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {}, { routingKey: 'bound-1' });
    h.launcher.autoReply = false;
    const id = must(instanceIds(h)[0], 'an instance');
    track(h.mgr.callTool(FP, 't', {}, { routingKey: 'bound-2' }));
    await settle();
    expect(h.mgr.callersOf(id)).toEqual(['bound-2']);
  });

  it('falls back to the sessions bound to a stateful instance when none has a call in flight', async () => {
    const h = await harness({ minReady: 1, strategy: 'stateful' });
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {}, { routingKey: 'bound-1' });
    const id = must(instanceIds(h)[0], 'an instance');
    expect(h.mgr.callersOf(id)).toEqual(['bound-1']);
  });

  it('sends a client notification to every running instance of the named pools only', async () => {
    const h = await harness({ minReady: 2, maxInstances: 2 });
    expect(h.mgr.notifyServers([FP], 'notifications/roots/list_changed', {})).toBe(2);
    expect(h.mgr.notifyServers(['other-fp'], 'notifications/roots/list_changed', {})).toBe(0);
    await settle();
    expect(h.launcher.sessions.map((s) => s.sent)).toEqual([
      [['notifications/roots/list_changed', {}]],
      [['notifications/roots/list_changed', {}]],
    ]);
  });
});
