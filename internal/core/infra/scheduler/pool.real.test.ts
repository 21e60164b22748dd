import { afterEach, describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { DEFAULT_RUNTIME } from '../../../contract/model/profile.js';
import type { ServerSpec } from '../../../contract/model/spec.js';
import { createLauncher, type ManagedLauncher } from '../mcp/launcher.js';
import { liveGroupMembers, readProc } from '../mcp/process-group.js';
import { fixtureSpec, processGone, waitFor } from '../../../../test/support/mcp-sessions.js';
import { PoolManager } from './pool-manager.js';
import type { LogEntry } from './types.js';

let launcher: ManagedLauncher | undefined;
let mgr: PoolManager | undefined;
const seenPids = new Set<number>();
const logs: LogEntry[] = [];

async function setup(spec: ServerSpec): Promise<PoolManager> {
  launcher = createLauncher();
  mgr = new PoolManager({ launcher, runtime: { ...DEFAULT_RUNTIME }, log: (e) => logs.push(e) });
  await mgr.reconcile(new Map([['fp', { spec, references: ['default/x'] }]]));
  return mgr;
}

async function pidCall(m: PoolManager): Promise<number> {
  const r = await m.callTool('fp', 'pid', {});
  const pid = Number((r.content as { text: string }[])[0]?.text);
  seenPids.add(pid);
  return pid;
}

const reaped = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

afterEach(async () => {
  await mgr?.shutdown();
  const reaperPid = launcher?.reaperPid();
  await launcher?.shutdown();
  if (reaperPid) await waitFor(() => reaped(reaperPid), 'reaper sidecar to exit');
  expect(mgr?.processCount() ?? 0).toBe(0);
  for (const pid of seenPids) {
    await waitFor(() => reaped(pid), `server ${pid} reaped`);
    expect(liveGroupMembers(pid)).toEqual([]);
  }
  seenPids.clear();
  logs.length = 0;
  mgr = undefined;
  launcher = undefined;
});

describe('PoolManager with real servers', () => {
  it('starts on demand in its own process group and idle-reaps to zero processes', async () => {
    const m = await setup(fixtureSpec('echo', 'echo.mjs', { idleSeconds: 1 }));
    expect(m.processCount()).toBe(0);
    const pid = await pidCall(m);
    expect(readProc(pid)?.pgid).toBe(pid);
    expect(m.status()[0]?.instances[0]?.pid).toBe(pid);
    await waitFor(() => m.processCount() === 0, 'idle reap', 10_000);
    await waitFor(() => reaped(pid), 'reaped pid');
    expect(logs.filter((l) => l.event === 'instance.stop').map((l) => l.fields?.cause)).toEqual(['idle']);
    expect((await m.tools('fp')).length).toBe(10); // listing served from the cache, nothing started
    expect(m.processCount()).toBe(0);
  });

  it('a crash mid-call fails that call with UNAVAILABLE; the next call gets a fresh process', async () => {
    const m = await setup(fixtureSpec('crashy', 'crash.mjs'));
    const first = await pidCall(m);
    const err = await m.callTool('fp', 'crash', {}).catch((e: McpdError) => e);
    expect(err).toBeInstanceOf(McpdError);
    expect((err as McpdError).reason).toBe('UNAVAILABLE');
    expect((err as McpdError).message).toMatch(/crashy exited \(code 1\) during the call/);
    await waitFor(() => reaped(first), 'crashed server reaped');
    const second = await pidCall(m);
    expect(second).not.toBe(first);
    expect(m.processCount()).toBe(1);
  });

  it('a hung server misses the deadline, fails its ping and is recycled', async () => {
    const m = await setup(fixtureSpec('hangy', 'hang.mjs', { drainTimeoutSeconds: 1 }));
    const first = await pidCall(m);
    const err = await m.callTool('fp', 'freeze', {}, { timeoutMs: 500 }).catch((e: McpdError) => e);
    expect((err as McpdError).reason).toBe('DEADLINE_EXCEEDED');
    await waitFor(() => logs.some((l) => l.event === 'instance.stopped' && l.fields?.cause === 'hung'), 'hung recycle', 15_000);
    await waitFor(() => reaped(first), 'hung server reaped');
    const second = await pidCall(m);
    expect(second).not.toBe(first);
  });

  it('follows list_changed from a live server', async () => {
    const m = await setup(fixtureSpec('churny', 'echo.mjs', { env: { ECHO_TOOL_COUNT: '120', ECHO_PAGE_SIZE: '50' } }));
    const changed: string[] = [];
    m.onToolsChanged((fp) => changed.push(fp));
    expect((await m.tools('fp')).length).toBe(130);
    seenPids.add(m.status()[0]?.instances[0]?.pid as number);
    await m.callTool('fp', 'churn', {});
    await waitFor(() => m.cachedTools('fp')?.length === 131, 'refreshed listing');
    expect(changed.length).toBe(2); // first fill, then the change
  });

  it('shutdown stops a stubborn server and its grandchild: nothing is left', async () => {
    const m = await setup(fixtureSpec('stubborn', 'grandchild.mjs', { drainTimeoutSeconds: 1, minReady: 1 }));
    await waitFor(() => m.status()[0]?.instances[0]?.state === 'ready', 'warm instance');
    const pid = m.status()[0]?.instances[0]?.pid as number;
    seenPids.add(pid);
    const members = liveGroupMembers(pid);
    expect(members.length).toBe(2);
    await m.shutdown();
    expect(m.processCount()).toBe(0);
    expect(liveGroupMembers(pid)).toEqual([]);
    for (const p of members) expect(processGone(p.pid)).toBe(true);
  });
});
