/**
 * typeText on a real desktop (Xvfb + AT-SPI + GTK), counted from the application's own log: non-ASCII
 * text arrives whole; typing without an editable target (xdotool) honours the request's timeout instead of
 * a fixed 10 s, stops at an abort or the deadline with no input after it, and says how much was typed;
 * text that arrives different (a character the application dropped) is an error, never `typed: true`, and
 * `verified: true` only when the field shows the text; observe's screenshot is private.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeCallError, BridgeClient } from '../../internal/contract/desktop-bridge/bridge-client.js';
import { DesktopSession, exited, FIXTURE_APP, GTK_FIXTURE, startSocketHost } from '../support/desktop-session.js';
import { waitFor } from '../support/procs.js';

/** Characters per xdotool run (internal/desktop-host/linux/typing.ts): a stop may cut one short. */
const CHUNK = 512;

describe('typeText on a real Linux desktop', () => {
  const session = new DesktopSession();
  const ws = join(session.dir, 'workspace');
  const socket = join(session.dir, 'run', 'bridge.sock');
  const appLog = join(session.dir, 'entry.log');
  let host: ChildProcess;
  let client: BridgeClient;
  const route = { app: { name: FIXTURE_APP } };
  /** A second fixture whose entry refuses 東, as an application that reads a remapped key late loses it. */
  const DROPPING_APP = 'mcpd-dropping';
  const dropping = { app: { name: DROPPING_APP } };
  let droppingApp: ChildProcess;
  const meta = (timeoutMs = 30_000) => ({ schemaVersion: 1, requestId: randomUUID(), workspacePath: ws, timeoutMs });
  /** The entry's length after each change, as the app logged it. */
  const lengths = (): number[] => readFileSync(appLog, 'utf8').split('\n').filter(Boolean).map(Number);
  const current = (): number => lengths().at(-1) ?? 0;
  const confirmed = async (method: string, params: Record<string, unknown>, m = meta()) => {
    const { token } = await client.call<{ token: string }>('desktop.confirm.issue', { meta: meta(), intent: { method, params } });
    return client.call(method, { ...params, meta: m, confirm: { token } });
  };
  const entryValue = async (r0: { app: { name: string } } = route): Promise<string | null> => {
    const r = await client.call<{ elementRefs: { value: string | null }[] }>('desktop.find', {
      meta: meta(),
      route: r0,
      selector: { byRole: 'AXTextField' },
    });
    return r.elementRefs[0]?.value ?? null;
  };
  /** One more key through the same path: once the app has it, everything sent before it has arrived too. */
  const settle = async (): Promise<number> => {
    const before = current();
    await confirmed('desktop.typeText', { route, text: 'Z' });
    await waitFor('the marker key in the app', () => current() > before);
    return current() - 1;
  };

  beforeAll(async () => {
    mkdirSync(ws, { recursive: true });
    await session.start();
    await session.launch('/usr/bin/python3', [GTK_FIXTURE, appLog], FIXTURE_APP);
    droppingApp = await session.launch('/usr/bin/python3', [GTK_FIXTURE], DROPPING_APP, {
      MCPD_FIXTURE_APP: DROPPING_APP,
      MCPD_FIXTURE_TITLE: 'mcpd dropping',
      MCPD_FIXTURE_DROP: '東',
    });
    ({ child: host } = await startSocketHost(session, socket, session.dir));
    client = await BridgeClient.connect(socket);
  });

  afterAll(async () => {
    client?.close();
    droppingApp?.kill('SIGTERM');
    if (host && host.exitCode === null) {
      host.kill('SIGTERM');
      expect(await exited(host)).toBe(0);
    }
    await session.stop();
  });

  it('inserts non-ASCII text whole into an editable field', async () => {
    const target = { selector: { byRole: 'AXTextField' } };
    for (const text of ['日本語テキスト', 'héllo wörld', 'emoji 🎉 ok']) {
      await confirmed('desktop.typeText', { route, target, text, options: { clearBefore: true } });
      expect(await entryValue()).toBe(text);
      expect(current()).toBe(Array.from(text).length);
    }
  });

  it('stops typing at meta.timeoutMs: no key after the error, which says how much was typed', async () => {
    const start = current();
    const err = await confirmed('desktop.typeText', { route, text: 'q'.repeat(2000) }, meta(4000)).catch((e: BridgeCallError) => e.error);
    expect(err).toMatchObject({ code: 'DESKTOP_TIMEOUT' });
    const { typedChars, totalChars } = (err as { details: { typedChars: number; totalChars: number } }).details;
    expect(totalChars).toBe(2000);
    expect((err as { message: string }).message).toContain(`${typedChars} of 2000 characters were typed`);
    const arrived = (await settle()) - start;
    expect(arrived).toBeGreaterThanOrEqual(typedChars);
    expect(arrived).toBeLessThanOrEqual(typedChars + CHUNK);
    expect(arrived).toBeLessThan(2000);
  }, 60_000);

  it('stops typing at an abort mid-way, counted from the app log', async () => {
    const start = current();
    const m = meta(120_000);
    const running = confirmed('desktop.typeText', { route, text: 'w'.repeat(2000) }, m).catch((e: BridgeCallError) => e.error);
    await waitFor('typing under way', () => current() >= start + 100, 30_000);
    await client.call('desktop.abort', { meta: meta(), requestId: m.requestId });
    const err = await running;
    expect(err).toMatchObject({ code: 'DESKTOP_ABORTED' });
    const { typedChars } = (err as { details: { typedChars: number } }).details;
    const arrived = (await settle()) - start;
    expect(arrived).toBeGreaterThanOrEqual(typedChars);
    expect(arrived).toBeLessThanOrEqual(typedChars + CHUNK);
    expect(arrived).toBeLessThan(2000);
  }, 60_000);

  it('text typed by xdotool that arrives different is an error saying where, not typed: true', async () => {
    const clear = { route: dropping, target: { selector: { byRole: 'AXTextField' } }, text: '-', options: { clearBefore: true } };
    await confirmed('desktop.typeText', clear);
    // No target: the keys go to the focused entry through xdotool, one by one; the app drops 東.
    const e = await confirmed('desktop.typeText', { route: dropping, text: 'ab東cd' }).catch((x: BridgeCallError) => x.error);
    expect(e).toMatchObject({ code: 'DESKTOP_INTERNAL_ERROR', details: { reason: 'typed-text-differs', differsAt: 3 } });
    expect((e as { message: string }).message).toMatch(
      /the typed text arrived different: the field holds 5 characters where 6 were expected/,
    );
    expect((e as { message: string }).message).not.toContain('ab');
    expect(await entryValue(dropping)).toBe('-abcd');
    // Into an editable target (InsertText) the same application drops it too, and that is said as well.
    const into = await confirmed('desktop.typeText', { ...clear, text: 'x東y' }).catch((x: BridgeCallError) => x.error);
    expect(into).toMatchObject({ code: 'DESKTOP_INTERNAL_ERROR', details: { reason: 'typed-text-differs' } });
  }, 60_000);

  it('text typed by xdotool is verified: verified: true only when the field shows it whole, else the difference is an error', async () => {
    const target = { selector: { byRole: 'AXTextField' } };
    expect(await confirmed('desktop.typeText', { route, text: 'plain ascii' })).toMatchObject({ typed: true, verified: true });
    for (const text of ['grüße', '東京 ok']) {
      await confirmed('desktop.typeText', { route, target, text: '>', options: { clearBefore: true } });
      // Whether xdotool gets non-ASCII through depends on the application's timing; the answer must say which.
      const r = await confirmed('desktop.typeText', { route, text }).then(
        (ok) => ({ ok }),
        (x: BridgeCallError) => ({ error: x.error }),
      );
      const value = await entryValue();
      if ('ok' in r) {
        expect(r.ok).toMatchObject({ typed: true, verified: true });
        expect(value).toBe(`>${text}`);
      } else {
        expect(r.error).toMatchObject({ code: 'DESKTOP_INTERNAL_ERROR', details: { reason: 'typed-text-differs' } });
        expect(value).not.toBe(`>${text}`);
      }
    }
  }, 60_000);

  it("writes observe's screenshot 0600", async () => {
    const r = await client.call<{ evidence: { dir: string; screenshotPath: string } }>('desktop.observe', { meta: meta(), route });
    expect(statSync(join(r.evidence.dir, r.evidence.screenshotPath)).mode & 0o777).toBe(0o600);
  });

  // Last: the long text leaves the fixture's entry long, and each key then costs the app O(length) (its
  // handler measures the whole text); on a loaded machine Xvfb drops keys queued behind so slow a client, which
  // the stop tests above, counting keys from the app log, would read as keys never typed.
  it('types long text without an editable target within the request timeout, past the old 10 s cap', async () => {
    await confirmed('desktop.typeText', {
      route,
      target: { selector: { byRole: 'AXTextField' } },
      text: 'x',
      options: { clearBefore: true },
    });
    const start = current();
    const text = 'abcdefghij'.repeat(250);
    // 2,500 keys at 5 ms each take over 12 s: the old single xdotool call was cut at 10 s.
    expect(await confirmed('desktop.typeText', { route, text }, meta(120_000))).toMatchObject({ typed: true });
    await waitFor('every key in the app', () => current() >= start + text.length, 30_000);
    expect(current()).toBe(start + text.length);
  }, 180_000);

  it('an element value longer than 4,096 characters says it was cut, and how long it is', async () => {
    const text = 'y'.repeat(5000);
    const r = await confirmed('desktop.typeText', {
      route,
      target: { selector: { byRole: 'AXTextField' } },
      text,
      options: { clearBefore: true },
    });
    expect(r).toMatchObject({ typed: true, verified: true });
    const found = await client.call<{ elementRefs: { value: string; valueTruncated?: boolean; valueLength?: number }[] }>('desktop.find', {
      meta: meta(),
      route,
      selector: { byRole: 'AXTextField' },
    });
    const [entry] = found.elementRefs;
    expect(entry?.value).toHaveLength(4096);
    expect(entry).toMatchObject({ valueTruncated: true, valueLength: 5000 });
  }, 60_000);
});
