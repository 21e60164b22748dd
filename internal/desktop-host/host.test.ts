import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { BridgeError } from '../contract/desktop-bridge/errors.js';
import { FakeDesktopBackend } from '../../test/support/fake-desktop-backend.js';
import { FakeClock } from '../../test/support/fake-clock.js';
import { waitFor } from '../../test/support/procs.js';
import { BridgeHost } from './host.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'mcpd-host-')));
const root = join(base, 'root');
const ws = join(root, 'ws');
mkdirSync(ws, { recursive: true });
afterAll(() => rmSync(base, { recursive: true, force: true }));

const conn = { connectionId: 'conn-a', peerPid: 1234 };
const meta = (extra: Record<string, unknown> = {}) => ({
  schemaVersion: 1,
  requestId: randomUUID(),
  workspacePath: ws,
  timeoutMs: 60_000,
  ...extra,
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: BridgeError) => ({ code: e.code, message: e.message, details: e.details }),
  );

describe('BridgeHost with a fake backend', () => {
  let backend: FakeDesktopBackend;
  let clock: FakeClock;
  let host: BridgeHost;

  beforeEach(async () => {
    clock = new FakeClock();
    backend = new FakeDesktopBackend(() => clock.now());
    host = new BridgeHost({ backend, workspaceRoot: root, hostVersion: '9.9.9', clock });
    await host.start();
  });

  it('observe writes the evidence layout under artifacts/desktop/YYYY-MM-DD/<executionId>/ and returns it', async () => {
    const r = await host.handle('desktop.observe', { meta: meta() }, conn);
    const id = r.executionId as string;
    const dir = join(ws, 'artifacts/desktop/2026-02-09', id);
    expect(r.evidence).toEqual({ dir: `${dir}/`, axPath: 'ax.json', screenshotPath: 'observe.png' });
    expect(readdirSync(dir).sort()).toEqual(['ax.json', 'observe.png', 'result.json', 'trace.jsonl']);
    expect(readFileSync(join(dir, 'observe.png')).subarray(1, 4).toString()).toBe('PNG');
    const ax = JSON.parse(readFileSync(join(dir, 'ax.json'), 'utf8')) as { nodes: { title: string }[] };
    expect(ax.nodes.map((n) => n.title)).toContain('Increment');
    const trace = readFileSync(join(dir, 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; t: string });
    expect(trace.map((e) => e.event)).toEqual(['start', 'observed', 'end']);
    expect(trace[0]?.t).toBe('2026-02-09T12:00:00.000Z');
    expect(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'))).toMatchObject({
      method: 'desktop.observe',
      result: { executionId: id },
    });
    expect(r.routeResolved).toEqual({ app: 'fake-app', pid: 4242, windowTitle: 'Fake Window' });
  });

  it('observe honours axMaxNodes and says it truncated', async () => {
    const r = await host.handle('desktop.observe', { meta: meta(), options: { axMaxNodes: 2, includeScreenshot: false } }, conn);
    expect(r).toMatchObject({ nodeCount: 2, truncated: true, truncatedBy: 'nodes' });
    expect((r.evidence as Record<string, unknown>).screenshotPath).toBeUndefined();
  });

  it('a walk that runs out of time comes back truncated by the deadline, short of meta.timeoutMs, with evidence', async () => {
    backend.beforeWalk = () => clock.advance(4000); // the desktop answers slowly
    const r = await host.handle('desktop.observe', { meta: meta({ timeoutMs: 5000 }), options: { includeScreenshot: false } }, conn);
    expect(r).toMatchObject({ truncated: true, truncatedBy: 'deadline', nodeCount: 0 });
    const fast = await host.handle('desktop.observe', { meta: meta({ timeoutMs: 6000 }), options: { includeScreenshot: false } }, conn);
    expect(fast).toMatchObject({ truncated: false, nodeCount: 5 }); // 4 s is within 6 s − 1 s
  });

  it('find returns stable elementRefs and the match count; limit caps the refs, not the count', async () => {
    const a = await host.handle('desktop.find', { meta: meta(), selector: { byRole: 'AXButton' } }, conn);
    const b = await host.handle('desktop.find', { meta: meta(), selector: { byRole: 'push button', titleContains: 'Incr' } }, conn);
    expect(a.elementRefs).toEqual(b.elementRefs);
    expect(a).toMatchObject({
      matched: 1,
      elementRefs: [
        { elementId: ':1.9/button', role: 'AXButton', title: 'Increment', fingerprint: 'AXButton|Increment|x=10,y=100,w=100,h=24' },
      ],
    });
    const labels = await host.handle('desktop.find', { meta: meta(), selector: { byRole: 'AXStaticText', limit: 1 } }, conn);
    expect(labels.matched).toBe(1);
    const all = await host.handle('desktop.find', { meta: meta(), selector: { titleContains: '', limit: 2 } }, conn);
    expect(all.matched).toBe(5); // '' is contained in every title, the untitled entry's included
    expect(all.elementRefs).toHaveLength(2);
  });

  it('click with the phrase fallback presses; a wrong or missing phrase presses nothing', async () => {
    const m = meta();
    const ok = await host.handle(
      'desktop.click',
      { meta: m, confirm: { phrase: `CONFIRM:${m.requestId}` }, target: { selector: { titleContains: 'Increment' } } },
      conn,
    );
    expect(ok).toMatchObject({ clicked: true, elementId: ':1.9/button' });
    await host.handle(
      'desktop.click',
      { meta: meta(), confirm: { phrase: 'CONFIRM' }, target: { elementRef: { elementId: ':1.9/button' } } },
      conn,
    );
    expect(backend.pressed).toHaveLength(2);
    expect(
      await failure(
        host.handle(
          'desktop.click',
          { meta: meta(), confirm: { phrase: 'CONFIRM:someone-else' }, target: { elementRef: { elementId: ':1.9/button' } } },
          conn,
        ),
      ),
    ).toMatchObject({
      code: 'DESKTOP_CONFIRM_REQUIRED',
      details: { reason: 'phrase-mismatch' },
    });
    expect(await failure(host.handle('desktop.hotkey', { meta: meta(), keys: ['ctrl', 'k'] }, conn))).toMatchObject({
      code: 'DESKTOP_CONFIRM_REQUIRED',
      details: { reason: 'missing' },
    });
    expect(backend.pressed).toHaveLength(2);
    expect(backend.keys).toHaveLength(0);
  });

  it('a token authorises exactly one call with the params it was issued for', async () => {
    const params = { target: { selector: { titleContains: 'Increment' } } };
    const issued = await host.handle(
      'desktop.confirm.issue',
      { meta: meta(), intent: { method: 'desktop.click', params }, ttlMs: 5000 },
      conn,
    );
    expect(issued).toMatchObject({
      expiresAt: '2026-02-09T12:00:05.000Z',
      scope: { method: 'desktop.click' },
      peer: { pid: 1234, connectionId: 'conn-a' },
    });
    await host.handle('desktop.click', { ...params, meta: meta(), confirm: { token: issued.token } }, conn);
    expect(backend.pressed).toEqual([':1.9/button']);
    const replay = await failure(host.handle('desktop.click', { ...params, meta: meta(), confirm: { token: issued.token } }, conn));
    expect(replay).toMatchObject({ code: 'DESKTOP_CONFIRM_REQUIRED', details: { reason: 'unknown-or-used' } });
    // A token wins over a valid phrase (token > phrase): a bad token is not rescued by the phrase.
    const both = await failure(
      host.handle('desktop.click', { ...params, meta: meta(), confirm: { token: issued.token, phrase: 'CONFIRM' } }, conn),
    );
    expect(both.code).toBe('DESKTOP_CONFIRM_REQUIRED');
    expect(backend.pressed).toHaveLength(1);
  });

  it('a token is refused on another connection, after expiry, and for other params', async () => {
    const params = { keys: ['ctrl', 'k'] };
    const issue = async (ttlMs = 60_000) =>
      (await host.handle('desktop.confirm.issue', { meta: meta(), intent: { method: 'desktop.hotkey', params }, ttlMs }, conn)).token;
    const other = await failure(
      host.handle('desktop.hotkey', { ...params, meta: meta(), confirm: { token: await issue() } }, { connectionId: 'conn-b' }),
    );
    expect(other.details?.reason).toBe('other-connection');
    const t = await issue(1000);
    clock.advance(1000);
    expect((await failure(host.handle('desktop.hotkey', { ...params, meta: meta(), confirm: { token: t } }, conn))).details?.reason).toBe(
      'expired',
    );
    const mism = await failure(
      host.handle('desktop.hotkey', { keys: ['ctrl', 'q'], meta: meta(), confirm: { token: await issue() } }, conn),
    );
    expect(mism.details?.reason).toBe('params-mismatch');
    expect(backend.keys).toEqual([]);
  });

  it('confirm.issue refuses read-only methods and bad TTLs', async () => {
    expect(
      (await failure(host.handle('desktop.confirm.issue', { meta: meta(), intent: { method: 'desktop.find', params: {} } }, conn))).message,
    ).toMatch(/params.intent.method must be one of desktop.click/);
    expect(
      (
        await failure(
          host.handle('desktop.confirm.issue', { meta: meta(), intent: { method: 'desktop.click', params: {} }, ttlMs: 0 }, conn),
        )
      ).message,
    ).toMatch(/params.ttlMs must be an integer/);
  });

  it('typeText into an element and hotkey reach the backend after confirmation', async () => {
    await host.handle(
      'desktop.typeText',
      { meta: meta(), confirm: { phrase: 'CONFIRM' }, target: { elementRef: { elementId: ':1.9/entry' } }, text: 'hello' },
      conn,
    );
    await host.handle('desktop.hotkey', { meta: meta(), confirm: { phrase: 'CONFIRM' }, keys: ['ctrl', 'k'] }, conn);
    expect(backend.log).toEqual(['type::1.9/entry', 'key:ctrl+k']);
    await host.handle(
      'desktop.typeText',
      { meta: meta(), confirm: { phrase: 'CONFIRM' }, target: { elementRef: { elementId: ':1.9/entry' } }, text: ' more' },
      conn,
    );
    const appended = await host.handle('desktop.find', { meta: meta(), selector: { byRole: 'AXTextField' } }, conn);
    expect((appended.elementRefs as { value: string }[])[0]?.value).toBe('hello more');
    const o = {
      meta: meta(),
      confirm: { phrase: 'CONFIRM' },
      target: { elementRef: { elementId: ':1.9/entry' } },
      text: 'fresh',
      options: { clearBefore: true },
    };
    await host.handle('desktop.typeText', o, conn);
    const replaced = await host.handle('desktop.find', { meta: meta(), selector: { byRole: 'AXTextField' } }, conn);
    expect((replaced.elementRefs as { value: string }[])[0]?.value).toBe('fresh');
    const bad = await failure(host.handle('desktop.typeText', { ...o, meta: meta(), options: { clearBefore: 'yes' } }, conn));
    expect(bad.message).toMatch(/params.options.clearBefore must be true or false \(got "yes"\)/);
  });

  it('an element without an action, and a selector without a match, are DESKTOP_ELEMENT_NOT_FOUND (and written to result.json)', async () => {
    const noAction = await failure(
      host.handle(
        'desktop.click',
        { meta: meta(), confirm: { phrase: 'CONFIRM' }, target: { elementRef: { elementId: ':1.9/label' } } },
        conn,
      ),
    );
    expect(noAction).toMatchObject({ code: 'DESKTOP_ELEMENT_NOT_FOUND', details: { reason: 'no-action' } });
    const none = await failure(
      host.handle('desktop.click', { meta: meta(), confirm: { phrase: 'CONFIRM' }, target: { selector: { titleContains: 'Nope' } } }, conn),
    );
    expect(none.code).toBe('DESKTOP_ELEMENT_NOT_FOUND');
    const dir = join(ws, 'artifacts/desktop/2026-02-09', none.details?.executionId as string);
    expect(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'))).toMatchObject({ error: { code: 'DESKTOP_ELEMENT_NOT_FOUND' } });
  });

  it('waitUntil polls every pollMs on the clock and succeeds when the element appears', async () => {
    const p = host.handle(
      'desktop.waitUntil',
      { meta: meta(), condition: { selectorExists: { titleContains: 'Done' } }, pollMs: 250, timeoutMs: 5000 },
      conn,
    );
    await clock.sleeping();
    expect(backend.snapshots).toBe(1);
    clock.wakeNext();
    await clock.sleeping();
    expect(backend.snapshots).toBe(2);
    backend.addLabel(':1.9/done', 'Done!');
    clock.wakeNext();
    const r = await p;
    expect(r).toMatchObject({ ok: true, matched: 1, elapsedMs: 500, polls: 3 });
  });

  it('waitUntil ends with DESKTOP_TIMEOUT at its hard timeout, the last sleep cut short', async () => {
    const p = failure(
      host.handle(
        'desktop.waitUntil',
        { meta: meta(), condition: { selectorExists: { titleContains: 'Never' } }, pollMs: 400, timeoutMs: 1000 },
        conn,
      ),
    );
    for (let i = 0; i < 3; i++) {
      await clock.sleeping();
      clock.wakeNext();
    }
    const e = await p;
    expect(e).toMatchObject({ code: 'DESKTOP_TIMEOUT', details: { timeoutMs: 1000, polls: 4, elapsedMs: 1000 } });
  });

  it('abort by requestId stops a running waitUntil with DESKTOP_ABORTED; unknown or finished ids are DESKTOP_INVALID_REQUEST', async () => {
    const m = meta();
    const p = failure(
      host.handle('desktop.waitUntil', { meta: m, condition: { selectorExists: { titleContains: 'Never' } }, timeoutMs: 60_000 }, conn),
    );
    await clock.sleeping();
    const a = await host.handle('desktop.abort', { meta: meta(), requestId: m.requestId }, { connectionId: 'conn-b' });
    expect(a).toMatchObject({ aborted: true, requestId: m.requestId });
    expect((await p).code).toBe('DESKTOP_ABORTED');
    expect(clock.pendingSleeps()).toBe(0);
    expect((await failure(host.handle('desktop.abort', { meta: meta(), requestId: m.requestId }, conn))).code).toBe(
      'DESKTOP_INVALID_REQUEST',
    );
    expect((await failure(host.handle('desktop.abort', { meta: meta(), executionId: 'never-ran' }, conn))).code).toBe(
      'DESKTOP_INVALID_REQUEST',
    );
  });

  it('abort by the executionId (the contract field) works too', async () => {
    const m = meta();
    backend.gate = new Promise(() => undefined); // the find never finishes on its own
    const p = failure(host.handle('desktop.find', { meta: m, selector: { byRole: 'AXButton' } }, conn));
    await waitFor('the find to be running', () => backend.snapshots === 1);
    const trace = readdirSync(join(ws, 'artifacts/desktop/2026-02-09')).map((d) =>
      join(ws, 'artifacts/desktop/2026-02-09', d, 'trace.jsonl'),
    );
    const mine = trace.find(
      (t) => existsSync(t) && readFileSync(t, 'utf8').includes(m.requestId) && !existsSync(t.replace('trace.jsonl', 'result.json')),
    )!;
    const executionId = mine.split('/').at(-2)!;
    expect(await host.handle('desktop.abort', { meta: meta(), executionId }, conn)).toMatchObject({ aborted: true, executionId });
    expect((await p).code).toBe('DESKTOP_ABORTED');
  });

  it('meta.timeoutMs bounds every execution: DESKTOP_TIMEOUT, retryable', async () => {
    backend.gate = new Promise(() => undefined);
    const e = await failure(host.handle('desktop.observe', { meta: meta({ timeoutMs: 30 }) }, conn));
    expect(e).toMatchObject({ code: 'DESKTOP_TIMEOUT', details: { timeoutMs: 30 } });
  });

  it('ui-control actions share one lane: a second waits (and can be aborted while waiting); nothing is injected out of order', async () => {
    let release!: () => void;
    backend.gate = new Promise((r) => (release = r));
    const first = host.handle(
      'desktop.click',
      { meta: meta(), confirm: { phrase: 'CONFIRM' }, target: { selector: { titleContains: 'Increment' } } },
      conn,
    );
    await waitFor('the first click to hold the lane', () => backend.snapshots === 1);
    const waiting = meta();
    const aborted = failure(host.handle('desktop.hotkey', { meta: waiting, confirm: { phrase: 'CONFIRM' }, keys: ['a'] }, conn));
    const second = host.handle('desktop.hotkey', { meta: meta(), confirm: { phrase: 'CONFIRM' }, keys: ['b'] }, conn);
    await waitFor('two actions waiting for the lane', () => host.lane.waiting() === 2);
    await host.handle('desktop.abort', { meta: meta(), requestId: waiting.requestId }, conn);
    expect((await aborted).code).toBe('DESKTOP_ABORTED');
    expect(backend.log).toEqual([]);
    backend.gate = undefined;
    release();
    await Promise.all([first, second]);
    expect(backend.log).toEqual(['press::1.9/button', 'key:b']);
  });

  it('a requestId already running is refused', async () => {
    backend.gate = new Promise(() => undefined);
    const m = meta();
    void host.handle('desktop.find', { meta: m, selector: { byRole: 'AXButton' } }, conn).catch(() => undefined);
    await waitFor('the first to run', () => backend.snapshots === 1);
    expect(await failure(host.handle('desktop.find', { meta: m, selector: { byRole: 'AXButton' } }, conn))).toMatchObject({
      code: 'DESKTOP_INVALID_REQUEST',
      message: expect.stringMatching(/already running/),
    });
    await host.handle('desktop.abort', { meta: meta(), requestId: m.requestId }, conn);
  });

  it('an artifacts symlink pointing outside the workspace is refused before anything is written there', async () => {
    const ws2 = join(root, 'ws2');
    const outside = join(base, 'outside');
    mkdirSync(ws2);
    mkdirSync(outside);
    symlinkSync(outside, join(ws2, 'artifacts'));
    const e = await failure(host.handle('desktop.find', { meta: meta({ workspacePath: ws2 }), selector: { byRole: 'AXButton' } }, conn));
    expect(e.code).toBe('DESKTOP_WORKSPACE_FORBIDDEN');
    expect(e.message).toContain(`the evidence folder ${join(ws2, 'artifacts')} is a link`);
    expect(readdirSync(outside)).toEqual([]); // not even a folder was created there
  });

  it('the execution folder swapped for a link during a waitUntil: result.json stays in the folder the execution opened', async () => {
    const ws3 = join(root, 'ws3');
    const outside = join(base, 'outside3');
    mkdirSync(ws3);
    mkdirSync(outside);
    const m = meta({ workspacePath: ws3, timeoutMs: 60_000 });
    const waiting = failure(
      host.handle(
        'desktop.waitUntil',
        { meta: m, condition: { selectorExists: { titleContains: 'never' } }, pollMs: 1000, timeoutMs: 50_000 },
        conn,
      ),
    );
    const day = join(ws3, 'artifacts/desktop/2026-02-09');
    await waitFor('the execution folder', () => existsSync(day) && readdirSync(day).length === 1);
    const [id] = readdirSync(day);
    const opened = join(day, `${id}.moved`);
    renameSync(join(day, id!), opened);
    symlinkSync(outside, join(day, id!));
    await host.handle('desktop.abort', { meta: meta(), requestId: m.requestId }, conn);
    expect((await waiting).code).toBe('DESKTOP_ABORTED');
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(opened)).toContain('result.json');
  });

  it('a planted observe.png link is refused: the outside file is untouched', async () => {
    const ws4 = join(root, 'ws4');
    mkdirSync(ws4);
    const victim = join(base, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const day = join(ws4, 'artifacts/desktop/2026-02-09');
    backend.gate = new Promise(() => undefined);
    const m = meta({ workspacePath: ws4 });
    const observing = failure(host.handle('desktop.observe', { meta: m }, conn));
    await waitFor('the execution folder', () => existsSync(day) && readdirSync(day).length === 1);
    symlinkSync(victim, join(day, readdirSync(day)[0]!, 'observe.png'));
    backend.gate = undefined;
    await host.handle('desktop.abort', { meta: meta(), requestId: m.requestId }, conn);
    await observing;
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
  });

  it('observe returns the tree with the screenshot error when the screenshot fails', async () => {
    backend.screenshotError = new Error('import failed: timed out after 30000 ms; it was killed');
    try {
      const r = await host.handle('desktop.observe', { meta: meta() }, conn);
      expect(r).toMatchObject({ nodeCount: 5, screenshotError: { code: 'DESKTOP_INTERNAL_ERROR', message: /timed out/ } });
      expect(r.screen).toBeUndefined();
    } finally {
      backend.screenshotError = undefined;
    }
  });

  it('caps the unused confirm tokens one connection may hold', async () => {
    const intent = { method: 'desktop.hotkey', params: { keys: ['a'] } };
    const other = { connectionId: 'conn-cap', peerPid: 1 };
    for (let i = 0; i < 64; i++) await host.handle('desktop.confirm.issue', { meta: meta(), intent }, other);
    const e = await failure(host.handle('desktop.confirm.issue', { meta: meta(), intent }, other));
    expect(e).toMatchObject({ code: 'DESKTOP_INVALID_REQUEST', message: /already holds 64 unused confirm tokens/ });
    host.connectionClosed('conn-cap');
  });

  it('is not ready before start()', async () => {
    const cold = new BridgeHost({ backend, workspaceRoot: root, hostVersion: '1', clock });
    expect((await failure(cold.handle('desktop.health', { meta: meta() }, conn))).code).toBe('DESKTOP_HOST_NOT_READY');
  });

  it.each([
    ['0777', 0o777],
    ['1777 (sticky, like /tmp)', 0o1777],
  ])('a world-writable workspace root (mode %s) is refused at start with what to do', async (_label, mode) => {
    const shared = join(base, `shared-${mode.toString(8)}`);
    mkdirSync(shared);
    chmodSync(shared, mode); // mkdir's mode is cut by the umask
    const open = new BridgeHost({ backend, workspaceRoot: shared, hostVersion: '1', clock });
    await expect(open.start()).rejects.toThrow(
      `--workspace-root ${shared} is writable by every user (mode ${mode.toString(8)}); use a directory of your own (chmod o-w it, or pick another)`,
    );
    // Refused means not started: nothing is served from there.
    expect((await failure(open.handle('desktop.health', { meta: meta() }, conn))).code).toBe('DESKTOP_HOST_NOT_READY');
    chmodSync(shared, 0o755);
    await open.start(); // the same root, once private, is accepted
  });

  it('health and doctor report the host, the backend and the peer', async () => {
    expect(await host.handle('desktop.health', { meta: meta() }, conn)).toMatchObject({
      hostVersion: '9.9.9',
      platform: 'fake',
      permissions: { accessibility: 'granted' },
      bridge: { schemaVersion: 1 },
      peer: { pid: 1234, connectionId: 'conn-a' },
    });
    expect(await host.handle('desktop.doctor', { meta: meta() }, conn)).toMatchObject({ healthy: true, issues: [], peer: { pid: 1234 } });
  });
});
