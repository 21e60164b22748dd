import { afterEach, describe, expect, it } from 'vitest';
import { McpdError } from '../../../shared/errors.js';
import { createLauncher, type ManagedLauncher } from './launcher.js';
import type { McpSession } from './session.js';
import { liveGroupMembers, readProc } from './process-group.js';
import { fixtureSpec, liveDescendants, processGone, stdioSpec, waitFor } from '../../../../test/support/mcp-sessions.js';

const launchers: ManagedLauncher[] = [];
const pids: number[] = [];

function newLauncher(opts: Parameters<typeof createLauncher>[0] = {}): ManagedLauncher {
  const l = createLauncher({ reaper: false, ...opts });
  launchers.push(l);
  return l;
}

async function start(l: ManagedLauncher, ...args: Parameters<typeof fixtureSpec>): Promise<McpSession> {
  const s = await l.launch(fixtureSpec(...args), { instanceId: 'i1' });
  if (s.pid) pids.push(s.pid);
  return s;
}

function reaped(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function reason(p: Promise<unknown>): Promise<McpdError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(McpdError);
    return e as McpdError;
  }
  throw new Error('expected a rejection');
}

afterEach(async () => {
  await Promise.all(launchers.splice(0).map((l) => l.shutdown()));
  for (const pid of pids.splice(0)) await waitFor(() => reaped(pid), `pid ${pid} reaped`);
});

describe('launcher (real stdio servers)', () => {
  it('starts a server in its own process group, handshakes, calls and stops it', async () => {
    const s = await start(newLauncher(), 'echo', 'echo.mjs');
    expect(s.pid).toBeGreaterThan(0);
    expect(readProc(s.pid as number)?.pgid).toBe(s.pid);
    expect(s.serverInfo.name).toBe('fixture-echo');
    expect(s.capabilities.tools).toEqual({ listChanged: true });
    const r = await s.callTool('echo', { a: 1 }, { timeoutMs: 5000 });
    expect(r.structuredContent).toEqual({ a: 1 });
    await s.close();
    expect(reaped(s.pid as number)).toBe(true);
  });

  it('passes a sane base environment plus the spec env', async () => {
    const s = await start(newLauncher(), 'env', 'echo.mjs', { env: { FOO: 'bar' } });
    const text = async (name: string) => {
      const r = await s.callTool('env', { name }, { timeoutMs: 5000 });
      return (r.content as { text: string }[])[0]?.text;
    };
    expect(await text('FOO')).toBe('bar');
    expect(await text('PATH')).toBe(process.env.PATH);
  });

  it('follows every tools/list page', async () => {
    const s = await start(newLauncher(), 'paged', 'echo.mjs', { env: { ECHO_TOOL_COUNT: '120', ECHO_PAGE_SIZE: '50' } });
    const tools = await s.listTools();
    expect(tools).toHaveLength(130);
    expect(new Set(tools.map((t) => t.name)).size).toBe(130);
    expect(tools[129]?.definition.description).toBe('generated');
  });

  it('stops on a repeated cursor and on too many pages, with a clear error', async () => {
    const l = newLauncher({ listGuards: { maxPages: 4, maxTools: 10_000 } });
    const loop = await start(l, 'loopy', 'echo.mjs', { env: { ECHO_PAGE_SIZE: '3', ECHO_CURSOR_LOOP: '1' } });
    const e1 = await reason(loop.listTools());
    expect(e1.reason).toBe('DOWNSTREAM_ERROR');
    expect(e1.message).toMatch(/loopy repeated tools\/list cursor "3"/);
    const many = await start(l, 'many', 'echo.mjs', { env: { ECHO_PAGE_SIZE: '1' } });
    const e2 = await reason(many.listTools());
    expect(e2.message).toMatch(/more than 4 pages/);
  });

  it('times out a call, cancels it downstream, and keeps the session usable', async () => {
    const s = await start(newLauncher(), 'hang', 'hang.mjs');
    const lines: string[] = [];
    s.onStderr((l) => lines.push(l));
    const e = await reason(s.callTool('hang', {}, { timeoutMs: 200 }));
    expect(e.reason).toBe('DEADLINE_EXCEEDED');
    expect(e.message).toMatch(/hang did not answer tools\/call within 200 ms/);
    await waitFor(() => lines.includes('fixture: cancelled hang'), 'cancellation to reach the server');
    const r = await s.callTool('echo', { ok: true }, { timeoutMs: 5000 });
    expect(r.structuredContent).toEqual({ ok: true });
  });

  it('aborts a call on the signal with CANCELLED and reports progress', async () => {
    const s = await start(newLauncher(), 'slow', 'echo.mjs');
    const progress: number[] = [];
    const r = await s.callTool('slow', { steps: 3, ms: 10 }, { timeoutMs: 5000, onProgress: (p) => progress.push(p.progress) });
    expect(r.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const ac = new AbortController();
    const lines: string[] = [];
    s.onStderr((l) => lines.push(l));
    const p = s.callTool('slow', { steps: 100, ms: 50 }, { timeoutMs: 5000, signal: ac.signal, onProgress: () => ac.abort() });
    const e = await reason(p);
    expect(e.reason).toBe('CANCELLED');
    await waitFor(() => lines.includes('fixture: cancelled slow'), 'cancellation to reach the server');
  });

  it('forwards notifications and stderr lines', async () => {
    const s = await start(newLauncher(), 'churn', 'echo.mjs');
    const seen: string[] = [];
    const lines: string[] = [];
    s.onNotification((m) => seen.push(m));
    s.onStderr((l) => lines.push(l));
    expect(lines.some((l) => l.startsWith('fixture: ready'))).toBe(true); // buffered from the handshake
    await s.callTool('churn', {}, { timeoutMs: 5000 });
    await s.callTool('stderr', { line: 'to the log' }, { timeoutMs: 5000 });
    await waitFor(() => seen.includes('notifications/tools/list_changed'), 'list_changed');
    await waitFor(() => lines.includes('to the log'), 'stderr line');
    expect((await s.listTools()).map((t) => t.name)).toContain('extra10');
  });

  it.each([
    ['crash', /crash exited \(code 1\) during the call/],
    ['kill9', /crash exited \(signal SIGKILL\) during the call/],
  ])('a crash during %s fails the call at once with UNAVAILABLE and closes once', async (tool, msg) => {
    const s = await start(newLauncher(), 'crash', 'crash.mjs');
    const closes: (Error | undefined)[] = [];
    s.onClose((err) => closes.push(err));
    const t0 = Date.now();
    const e = await reason(s.callTool(tool, {}, { timeoutMs: 10_000 }));
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(e.reason).toBe('UNAVAILABLE');
    expect(e.message).toMatch(msg);
    await waitFor(() => closes.length > 0, 'onClose');
    expect(closes).toHaveLength(1);
    expect(closes[0]?.message).toMatch(/exited/);
    const again = await reason(s.callTool('echo', {}, { timeoutMs: 1000 }));
    expect(again.reason).toBe('UNAVAILABLE');
  });

  it('names the command and cwd when the program does not exist', async () => {
    const l = newLauncher();
    const e = await reason(l.launch(stdioSpec('ghost', ['/nonexistent/mcp-server', '--x'], { cwd: '/tmp' }), { instanceId: 'g' }));
    expect(e.reason).toBe('UNAVAILABLE');
    expect(e.message).toMatch(/ghost.*"\/nonexistent\/mcp-server" in \/tmp: command not found/);
    const e2 = await reason(l.launch(stdioSpec('nodir', ['node'], { cwd: '/no/such/dir' }), { instanceId: 'g' }));
    expect(e2.message).toMatch(/working directory \/no\/such\/dir does not exist/);
  });

  it('explains a server that exits before the handshake, with its stderr', async () => {
    const l = newLauncher();
    const e = await reason(l.launch(fixtureSpec('early', 'crash.mjs', { env: { CRASH_AT_START: '3' } }), { instanceId: 'e' }));
    expect(e.reason).toBe('UNAVAILABLE');
    expect(e.message).toMatch(/early failed to start: it exited \(code 3\) before completing the MCP handshake/);
    expect(e.message).toMatch(/exiting at start as asked/);
    expect(l.liveSessions()).toBe(0);
  });

  it('stops a stubborn server and its grandchild: SIGTERM, grace, SIGKILL to the whole group', async () => {
    const l = newLauncher({ graceMs: 300 });
    const s = await start(l, 'stubborn', 'grandchild.mjs');
    const lines: string[] = [];
    s.onStderr((line) => lines.push(line));
    await waitFor(() => lines.some((x) => x.startsWith('fixture: grandchild ')), 'grandchild pid');
    const gc = Number(lines.find((x) => x.startsWith('fixture: grandchild '))?.split(' ')[2]);
    expect(readProc(gc)?.pgid).toBe(s.pid);
    await s.close();
    expect(reaped(s.pid as number)).toBe(true);
    expect(processGone(gc)).toBe(true);
    expect(liveGroupMembers(s.pid as number)).toEqual([]);
  });

  it('start/stop cycles return the descendant count to its baseline (grandchildren included)', async () => {
    const l = newLauncher({ graceMs: 200 });
    const baseline = liveDescendants().length;
    for (let i = 0; i < 3; i++) {
      const s = await start(l, `cycle${i}`, 'grandchild.mjs');
      await waitFor(() => liveDescendants().length >= baseline + 1, 'server running');
      await s.close();
      await waitFor(() => liveDescendants().length === baseline, `descendants back to ${baseline} after cycle ${i}`, 5000);
      expect(liveGroupMembers(s.pid as number)).toEqual([]);
    }
  });
});
