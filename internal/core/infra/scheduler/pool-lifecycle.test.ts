import { describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { settle } from '../../../../test/support/scheduler-fake-clock.js';
import { FP, harness, makeSpec, track } from '../../../../test/support/scheduler.js';
import { must } from '../../../shared/must.js';

describe('PoolManager lifecycle', () => {
  it('reaps an idle instance after idleSeconds (cause idle), down to zero', async () => {
    const h = await harness({ idleSeconds: 30 });
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {});
    await h.clock.advance(29_999);
    expect(h.mgr.processCount()).toBe(1);
    await h.clock.advance(1);
    expect(h.mgr.processCount()).toBe(0);
    expect(h.launcher.live()).toHaveLength(0);
    expect(h.events('instance.stop')[0]?.fields).toMatchObject({ cause: 'idle' });
  });

  it('a call restarts the idle countdown', async () => {
    const h = await harness({ idleSeconds: 30 });
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {});
    await h.clock.advance(20_000);
    await h.mgr.callTool(FP, 't', {});
    await h.clock.advance(20_000);
    expect(h.mgr.processCount()).toBe(1);
    await h.clock.advance(10_000);
    expect(h.mgr.processCount()).toBe(0);
  });

  it('keeps minReady instances and reaps only those above it', async () => {
    const h = await harness({ minReady: 1, maxInstances: 2, maxConcurrent: 1, idleSeconds: 30 });
    expect(h.mgr.status()[0]?.instances.map((i) => i.startCause)).toEqual(['min-ready']);
    const a = track(h.mgr.callTool(FP, 'a', {}));
    const b = track(h.mgr.callTool(FP, 'b', {}));
    await settle();
    expect(h.mgr.processCount()).toBe(2);
    h.launcher.calls.forEach((c) => c.resolve({}));
    await settle();
    expect(a.done && b.done).toBe(true);
    await h.clock.advance(31_000);
    expect(h.mgr.processCount()).toBe(1);
  });

  it.each([
    ['idleSeconds 0', { idleSeconds: 0 }],
    ['persistent', { strategy: 'persistent' as const, idleSeconds: 30 }],
  ])('never reaps with %s', async (_n, over) => {
    const h = await harness(over);
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {});
    await h.clock.advance(10 * 3600_000);
    expect(h.mgr.processCount()).toBe(1);
  });

  it('always-on starts an instance at reconcile', async () => {
    const h = await harness({ activationMode: 'always-on' });
    expect(h.mgr.status()[0]?.instances.map((i) => i.startCause)).toEqual(['always-on']);
  });

  it('a crash mid-call fails the caller with UNAVAILABLE at once; the next call gets a fresh instance', async () => {
    const h = await harness();
    const c = track(h.mgr.callTool(FP, 't', {}));
    await settle();
    must(h.launcher.sessions[0], 'h.launcher.sessions[0]').crash('exited (code 1)');
    await settle();
    expect(c.error?.reason).toBe('UNAVAILABLE');
    expect(c.error?.message).toMatch(/srv exited \(code 1\) during the call/);
    expect(h.mgr.processCount()).toBe(0);
    expect(h.mgr.status()[0]?.lastError).toMatch(/exited/);
    h.launcher.autoReply = true;
    const r = await h.mgr.callTool(FP, 't', {});
    expect(r.pid).toBe(1001);
    // Healthy again: status stops showing the crash; the history keeps it.
    expect(h.mgr.status()[0]?.lastError).toBeUndefined();
    expect(h.mgr.status()[0]?.errorHistory.map((e) => e.message)).toEqual([expect.stringMatching(/exited/)]);
  });

  it('a call that succeeds clears only errors older than itself: a crash during it stays the last error', async () => {
    const h = await harness({ maxInstances: 2, maxConcurrent: 1 });
    const a = track(h.mgr.callTool(FP, 'a', {}));
    const b = track(h.mgr.callTool(FP, 'b', {}));
    await settle();
    expect(h.mgr.processCount()).toBe(2);
    must(h.launcher.sessions[1], 'h.launcher.sessions[1]').crash('exited (code 3)');
    await settle();
    expect(b.error?.message).toMatch(/exited \(code 3\)/);
    must(h.launcher.calls[0], 'h.launcher.calls[0]').resolve({});
    await settle();
    expect(a.done).toBe(true);
    expect(h.mgr.status()[0]?.lastError).toMatch(/exited \(code 3\)/);
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 'c', {});
    expect(h.mgr.status()[0]?.lastError).toBeUndefined();
  });

  it('restarts warm instances with capped exponential backoff', async () => {
    const h = await harness({ minReady: 1 }, { restartBackoffMaxSeconds: 1, crashLoopThreshold: 10 });
    const delays: number[] = [];
    for (let n = 0; n < 3; n++) {
      must(h.launcher.live()[0], 'h.launcher.live()[0]').crash();
      await settle();
      const delay = h.events('instance.restart_scheduled').at(-1)?.fields?.delayMs as number;
      delays.push(delay);
      const before = h.launcher.sessions.length;
      await h.clock.advance(delay - 1);
      expect(h.launcher.sessions.length).toBe(before);
      await h.clock.advance(1);
      expect(h.launcher.sessions.length).toBe(before + 1);
    }
    expect(delays).toEqual([500, 1000, 1000]);
    expect(h.mgr.status()[0]?.restarts).toBe(3);
    expect(h.mgr.status()[0]?.instances[0]?.startCause).toBe('restart');
  });

  it('suspends a crash-looping spec, fails calls fast with SPEC_SUSPENDED, and resumes', async () => {
    const h = await harness({ minReady: 1 }, { crashLoopThreshold: 3, crashLoopWindowSeconds: 60 });
    for (let n = 0; n < 4; n++) {
      must(h.launcher.live()[0], 'h.launcher.live()[0]').crash();
      await h.clock.advance(8000);
    }
    const st = must(h.mgr.status()[0], 'the pool status');
    expect(st.suspended).toBe(true);
    expect(st.suspendedReason).toMatch(/crashed 4 times within 60s/);
    expect(h.mgr.processCount()).toBe(0);
    const err = await h.mgr.callTool(FP, 't', {}).catch((e: McpdError) => e);
    expect((err as McpdError).reason).toBe('SPEC_SUSPENDED');
    expect((err as McpdError).message).toMatch(/suspended.*Reload/);
    h.mgr.resume(FP);
    await settle();
    expect(h.mgr.status()[0]?.suspended).toBe(false);
    expect(h.mgr.processCount()).toBe(1);
  });

  it('a start failure fails the waiting calls with the reason and counts toward the breaker', async () => {
    const h = await harness();
    h.launcher.failWith = new McpdError('UNAVAILABLE', 'cannot start server srv: "fake" in /: command not found');
    const e = await h.mgr.callTool(FP, 't', {}).catch((x: McpdError) => x);
    expect((e as McpdError).message).toMatch(/command not found/);
    expect(h.mgr.status()[0]?.lastError).toMatch(/command not found/);
    expect(h.mgr.processCount()).toBe(0);
    // The next start that comes up clears it.
    h.launcher.failWith = undefined;
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {});
    expect(h.mgr.status()[0]?.lastError).toBeUndefined();
  });

  it('recycles a hung instance after a missed deadline (ping fails), keeps one that answers ping', async () => {
    const h = await harness({ maxInstances: 2 });
    const slow = track(h.mgr.callTool(FP, 'slow', {}, { timeoutMs: 1000 }));
    await h.clock.advance(1000);
    expect(slow.error?.reason).toBe('DEADLINE_EXCEEDED');
    await h.clock.advance(2000);
    expect(h.events('instance.probe_ok')).toHaveLength(1);
    expect(h.mgr.processCount()).toBe(1);

    must(h.launcher.sessions[0], 'h.launcher.sessions[0]').hung = true;
    const hung = track(h.mgr.callTool(FP, 'stuck', {}, { timeoutMs: 1000 }));
    await h.clock.advance(1000);
    expect(hung.error?.reason).toBe('DEADLINE_EXCEEDED');
    await h.clock.advance(2000);
    expect(h.events('instance.stop').map((e) => e.fields?.cause)).toEqual(['hung']);
    expect(h.mgr.processCount()).toBe(0);
    expect(h.launcher.sessions[0]?.closed).toBe(true);
  });

  it('pings running instances every pingIntervalSeconds and recycles one that stops answering', async () => {
    const h = await harness({ idleSeconds: 3600 }, { pingIntervalSeconds: 30 });
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {});
    expect(h.mgr.processCount()).toBe(1);
    await h.clock.advance(30_000);
    await h.clock.advance(2000);
    // It answered: kept, nothing logged.
    expect(h.mgr.processCount()).toBe(1);
    expect(h.events('instance.hung')).toHaveLength(0);
    must(h.launcher.sessions[0], 'h.launcher.sessions[0]').hung = true;
    await h.clock.advance(28_000);
    expect(h.mgr.processCount()).toBe(1);
    await h.clock.advance(2000);
    expect(h.events('instance.hung').map((e) => e.fields?.probe)).toEqual(['interval']);
    expect(h.events('instance.stop').map((e) => e.fields?.cause)).toEqual(['hung']);
    expect(h.mgr.processCount()).toBe(0);
    expect(h.launcher.sessions[0]?.closed).toBe(true);
  });

  it('pingIntervalSeconds: 0 sends no periodic ping', async () => {
    const h = await harness({ idleSeconds: 3600 }, { pingIntervalSeconds: 0 });
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {});
    must(h.launcher.sessions[0], 'h.launcher.sessions[0]').hung = true;
    await h.clock.advance(600_000);
    expect(h.events('instance.hung')).toHaveLength(0);
    expect(h.mgr.processCount()).toBe(1);
  });

  it('reconcile keeps unchanged pools running, stops removed ones, and discards their in-flight starts', async () => {
    const h = await harness();
    h.launcher.autoReply = true;
    await h.mgr.callTool(FP, 't', {});
    const spec2 = makeSpec({ name: 'other' });
    await h.mgr.reconcile(
      new Map([
        [FP, { spec: h.spec, references: ['default/srv'] }],
        ['fp2', { spec: spec2, references: [] }],
      ]),
    );
    expect(h.launcher.sessions).toHaveLength(1);
    expect(h.launcher.sessions[0]?.closed).toBe(false);

    h.launcher.manualStart = true;
    const pending = track(h.mgr.callTool('fp2', 't', {}));
    await settle();
    expect(h.launcher.starts).toHaveLength(2);
    const gen = h.mgr.status().find((p) => p.fingerprint === 'fp2')?.generation;
    const removal = h.mgr.reconcile(new Map([[FP, { spec: h.spec, references: ['default/srv'] }]]));
    await settle();
    expect(pending.error?.reason).toBe('UNAVAILABLE');
    expect(h.launcher.starts[1]?.ctx.signal?.aborted).toBe(true);
    must(h.launcher.starts[1], 'h.launcher.starts[1]').succeed(); // the launch finishes anyway: its session must be closed, not served
    await removal;
    expect(gen).toBe(0);
    expect(h.launcher.sessions[1]?.closed).toBe(true);
    expect(h.events('instance.discarded')).toHaveLength(1);
    expect(h.mgr.status().map((p) => p.fingerprint)).toEqual([FP]);
    expect(h.launcher.sessions[0]?.closed).toBe(false);
  });

  it('drains in-flight calls before stopping a removed pool, bounded by drainTimeoutSeconds', async () => {
    const h = await harness({ drainTimeoutSeconds: 10 });
    const c = track(h.mgr.callTool(FP, 't', {}));
    await settle();
    const removal = track(h.mgr.reconcile(new Map()));
    await h.clock.advance(5000);
    expect(h.launcher.sessions[0]?.closed).toBe(false);
    must(h.launcher.calls[0], 'h.launcher.calls[0]').resolve({ fine: true });
    await settle();
    expect(c.value).toEqual({ fine: true });
    expect(removal.done).toBe(true);
    expect(h.launcher.sessions[0]?.closed).toBe(true);
  });

  it('shutdown stops everything and refuses new calls', async () => {
    const h = await harness({ minReady: 2, maxInstances: 2 });
    expect(h.mgr.processCount()).toBe(2);
    await h.mgr.shutdown();
    expect(h.mgr.processCount()).toBe(0);
    expect(h.launcher.live()).toHaveLength(0);
    expect(h.events('instance.stop').map((e) => e.fields?.cause)).toEqual(['shutdown', 'shutdown']);
    await expect(h.mgr.callTool(FP, 't', {})).rejects.toThrow(/shutting down/);
  });
});
