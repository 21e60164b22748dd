import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeCallError, BridgeClient } from '../../internal/contract/desktop-bridge/bridge-client.js';
import { DesktopSession, exited, FIXTURE_APP, startSocketHost } from '../support/desktop-session.js';
import { MCPDCTL } from '../support/paths.js';
import { must } from '../../internal/shared/must.js';

interface Ref {
  elementId: string;
  title: string | null;
  value: string | null;
  role: string;
}

/**
 * The real host on a real headless desktop: Xvfb, a private session bus, AT-SPI, the GTK fixture, all
 * started here and checked gone afterwards.
 */
describe('mcpd-desktop-host on a real Linux desktop (Xvfb + AT-SPI + GTK)', () => {
  const session = new DesktopSession();
  const ws = join(session.dir, 'workspace');
  const socket = join(session.dir, 'run', 'bridge.sock');
  let host: ChildProcess;
  let client: BridgeClient;
  const route = { app: { name: FIXTURE_APP } };
  const meta = (timeoutMs = 30_000) => ({ schemaVersion: 1, requestId: randomUUID(), workspacePath: ws, timeoutMs });
  const find = async (selector: Record<string, unknown>) =>
    client.call<{ elementRefs: Ref[]; matched: number }>('desktop.find', { meta: meta(), route, selector });
  /** A real condition on the real tree, through the host's own waitUntil. */
  const waitFor = (selector: Record<string, unknown>, timeoutMs = 20_000) =>
    client.call('desktop.waitUntil', {
      meta: meta(timeoutMs + 5000),
      route,
      condition: { selectorExists: selector },
      pollMs: 50,
      timeoutMs,
    });
  /** Issues a token for exactly these params on this connection, then runs the action with it. */
  const confirmed = async (method: string, params: Record<string, unknown>) => {
    const { token } = await client.call<{ token: string }>('desktop.confirm.issue', { meta: meta(), intent: { method, params } });
    return client.call(method, { ...params, meta: meta(), confirm: { token } });
  };

  beforeAll(async () => {
    mkdirSync(ws, { recursive: true });
    await session.start();
    await session.launchFixture();
    ({ child: host } = await startSocketHost(session, socket, session.dir));
    client = await BridgeClient.connect(socket);
  });

  afterAll(async () => {
    client?.close();
    if (host && host.exitCode === null) {
      host.kill('SIGTERM');
      expect(await exited(host)).toBe(0);
    }
    await session.stop();
  });

  it('health and doctor: everything the Linux backend needs is there', async () => {
    const doctor = await client.call('desktop.doctor', { meta: meta() });
    expect(doctor).toMatchObject({ healthy: true, issues: [], platform: 'linux-atspi', peer: { pid: null } }); // the socket face names its peer by connection (decision 40)
    expect(await client.call('desktop.health', { meta: meta() })).toMatchObject({
      platform: 'linux-atspi',
      permissions: { accessibility: 'granted', display: 'granted', input: 'granted', screenRecording: 'granted' },
    });
  });

  it('observe: a non-blank screenshot and a tree with the fixture widgets, as evidence in the workspace', async () => {
    const r = await client.call<{
      evidence: { dir: string; screenshotPath: string; axPath: string };
      routeResolved: Record<string, unknown>;
      screen: Record<string, number>;
    }>('desktop.observe', { meta: meta(), route });
    expect(r.evidence.dir.startsWith(`${ws}/artifacts/desktop/${new Date().toISOString().slice(0, 10)}/`)).toBe(true);
    expect(r.routeResolved).toMatchObject({ app: FIXTURE_APP, windowTitle: 'mcpd fixture' });
    expect(r.screen).toEqual({ width: 1280, height: 800 });
    const png = join(r.evidence.dir, r.evidence.screenshotPath);
    const colours = Number(execFileSync('identify', ['-format', '%k', png], { encoding: 'utf8' }));
    expect(colours).toBeGreaterThan(10); // a drawn GTK window, not a blank root
    const ax = JSON.parse(readFileSync(join(r.evidence.dir, r.evidence.axPath), 'utf8')) as { nodes: Ref[] };
    const titles = ax.nodes.map((n) => n.title);
    expect(titles).toEqual(expect.arrayContaining(['mcpd fixture', 'count: 0', 'Increment', 'hotkeys: 0']));
    expect(ax.nodes.some((n) => n.role === 'AXTextField')).toBe(true);
  });

  it('observe with tight bounds reports truncated', async () => {
    const r = await client.call('desktop.observe', { meta: meta(), route, options: { includeScreenshot: false, axMaxDepth: 2 } });
    expect(r).toMatchObject({ truncated: true, truncatedBy: 'depth' });
  });

  it('find: the button by contract role and by AT-SPI role, with a stable id and frame', async () => {
    const a = await find({ byRole: 'AXButton', titleContains: 'Incr' });
    const b = await find({ byRole: 'push button' });
    expect(a.matched).toBe(1);
    expect(a.elementRefs).toEqual(b.elementRefs);
    expect(a.elementRefs[0]?.elementId).toMatch(/^:\d+\.\d+\/org\/a11y\/atspi\/accessible\//);
    expect((a.elementRefs[0] as unknown as { frame: { width: number } }).frame.width).toBeGreaterThan(0);
  });

  it('routes by window title pattern and by pid; a route that matches no application is DESKTOP_ELEMENT_NOT_FOUND', async () => {
    const byTitle = await client.call<{ matched: number }>('desktop.find', {
      meta: meta(),
      route: { window: { titlePattern: '^mcpd fix' } },
      selector: { byRole: 'AXButton' },
    });
    expect(byTitle.matched).toBe(1);
    const obs = await client.call<{ routeResolved: { pid: number } }>('desktop.observe', {
      meta: meta(),
      route,
      options: { includeScreenshot: false },
    });
    const byPid = await client.call<{ matched: number }>('desktop.find', {
      meta: meta(),
      route: { app: { pid: obs.routeResolved.pid } },
      selector: { titleContains: 'Increment' },
    });
    expect(byPid.matched).toBe(1);
    const none = await client
      .call('desktop.find', { meta: meta(), route: { app: { name: 'no-such-app' } }, selector: { byRole: 'AXButton' } })
      .catch((e: BridgeCallError) => e.error);
    expect(none).toMatchObject({ code: 'DESKTOP_ELEMENT_NOT_FOUND', details: { reason: 'no-application' } });
  });

  it('click (confirmed with a token) changes the label; replaying the token is refused', async () => {
    const params = { route, target: { selector: { byRole: 'AXButton', titleContains: 'Increment' } } };
    const { token } = await client.call<{ token: string }>('desktop.confirm.issue', {
      meta: meta(),
      intent: { method: 'desktop.click', params },
    });
    expect(await client.call('desktop.click', { ...params, meta: meta(), confirm: { token } })).toMatchObject({ clicked: true });
    await waitFor({ titleContains: 'count: 1' });
    const replay = await client
      .call('desktop.click', { ...params, meta: meta(), confirm: { token } })
      .catch((e: BridgeCallError) => e.error);
    expect(replay).toMatchObject({ code: 'DESKTOP_CONFIRM_REQUIRED', details: { reason: 'unknown-or-used' } });
    expect((await find({ titleContains: 'count: ' })).elementRefs[0]?.title).toBe('count: 1'); // the replay pressed nothing
  });

  it('typeText fills the entry (and the app sees it: its echo label follows)', async () => {
    const [entry] = (await find({ byRole: 'AXTextField' })).elementRefs;
    if (!entry) throw new Error('the demo app has no text field');
    await confirmed('desktop.typeText', { route, target: { elementRef: { elementId: entry.elementId } }, text: 'hello bridge' });
    await waitFor({ titleContains: 'echo: hello bridge' });
    expect((await find({ byRole: 'AXTextField' })).elementRefs[0]?.value).toBe('hello bridge');
    await confirmed('desktop.typeText', {
      route,
      target: { selector: { byRole: 'AXTextField' } },
      text: 'replaced',
      options: { clearBefore: true },
    });
    await waitFor({ titleContains: 'echo: replaced' });
    expect((await find({ byRole: 'AXTextField' })).elementRefs[0]?.value).toBe('replaced');
  });

  it('hotkey: ctrl+k reaches the window (its accelerator counts it)', async () => {
    await confirmed('desktop.hotkey', { route, keys: ['ctrl', 'k'] });
    await waitFor({ titleContains: 'hotkeys: 1' });
  });

  it('waitUntil succeeds on a condition that becomes true, and times out on one that never does', async () => {
    const pending = waitFor({ titleContains: 'count: 2' });
    await confirmed('desktop.click', { route, target: { selector: { byRole: 'AXButton' } } });
    expect(await pending).toMatchObject({ ok: true, matched: 1 });
    const timeout = await waitFor({ titleContains: 'never there' }, 300).catch((e: BridgeCallError) => e.error);
    expect(timeout).toMatchObject({ code: 'DESKTOP_TIMEOUT', retryable: true, details: { timeoutMs: 300 } });
  });

  it('abort stops a running waitUntil with DESKTOP_ABORTED', async () => {
    const m = meta(60_000);
    const running = client
      .call('desktop.waitUntil', {
        meta: m,
        route,
        condition: { selectorExists: { titleContains: 'never there' } },
        pollMs: 50,
        timeoutMs: 55_000,
      })
      .catch((e: BridgeCallError) => e.error);
    let aborted: unknown;
    while (!aborted) aborted = await client.call('desktop.abort', { meta: meta(), requestId: m.requestId }).catch(() => undefined); // until it is registered
    expect(await running).toMatchObject({ code: 'DESKTOP_ABORTED' });
  });

  it('mcpdctl desktop-host drives the same host: find --json, then click --yes', async () => {
    const ctl = (...args: string[]) =>
      execFileSync(process.execPath, [MCPDCTL, 'desktop-host', socket, ...args, '--app', FIXTURE_APP, '--workspace', ws], {
        encoding: 'utf8',
      });
    const found = JSON.parse(ctl('find', '--role', 'AXButton', '--json')) as { matched: number; elementRefs: Ref[] };
    expect(found.elementRefs[0]?.title).toBe('Increment');
    expect(ctl('click', '--element', must(found.elementRefs[0], 'the button').elementId, '--yes')).toMatch(
      /^click ok, execution [0-9a-f-]{36}, evidence in /,
    );
    await waitFor({ titleContains: 'count: 3' });
  });
});
