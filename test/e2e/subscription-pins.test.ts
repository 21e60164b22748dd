import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { MCPDCTL } from '../support/paths.js';
import { cmdline, waitFor } from '../support/procs.js';
import { WINDOW_SERVER, windowServer } from '../support/profiles.js';
import { must } from '../../internal/shared/must.js';

const PIN_EDITOR = 'window://com.example.pin/editor?priority=80';
const DESK_EDITOR = 'window://com.example.desk/editor?priority=80';

type ToolResult = { content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}

describe('downstream subscriptions hold their instance and are shared with the desktop', () => {
  let world: TestWorld;
  let pinClient: Client;
  let deskClient: Client;
  const updates: string[] = [];
  const windowPids = (host: string) => world.pids().filter((p) => cmdline(p).includes(WINDOW_SERVER) && envHost(p) === host);

  beforeAll(async () => {
    world = new TestWorld({
      // A stateless pool reaped after 1 s idle: only the pin keeps the subscribed instance alive.
      'profiles/pins.yaml':
        'servers:\n' +
        windowServer('pin', 'com.example.pin', { strategy: 'stateless', maxInstances: 1, idleSeconds: 1 }) +
        // The same settings, never subscribed: the witness that the reaper has run past the idle time.
        windowServer('twin', 'com.example.twin', { strategy: 'stateless', maxInstances: 1, idleSeconds: 1 }),
      'profiles/desk.yaml': 'servers:\n' + windowServer('desk', 'com.example.desk', { strategy: 'singleton', idleSeconds: 300 }),
      'profiles/default.yaml': 'servers:\n' + windowServer('desk', 'com.example.desk', { strategy: 'singleton', idleSeconds: 300 }),
      'callers.yaml': 'callers:\n  subscriber: pins\n  viewer: desk\n',
    });
    await world.startCore();
    pinClient = await world.gateway('subscriber');
    pinClient.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    deskClient = await world.gateway('viewer');
  });
  afterAll(async () => world.cleanup());

  it('a subscribed URI on a stateless pool with idleSeconds 1 keeps its instance and its updates', async () => {
    await pinClient.subscribeResource({ uri: PIN_EDITOR });
    const [pid] = windowPids('com.example.pin');
    expect(pid).toBeGreaterThan(0);
    // The time under test: the unpinned twin, used after the pin was made, idles and is reaped; the pinned
    // instance, idle longer than that, must still be there.
    await pinClient.callTool({ name: 'twin__subscriptions', arguments: {} });
    const twin = must(windowPids('com.example.twin')[0], 'the twin server');
    await waitFor('the idle twin to be reaped', () => !alive(twin));
    expect(windowPids('com.example.pin')).toEqual([pid]);
    // mcpdctl status says why it stays.
    const status = execFileSync(process.execPath, [MCPDCTL, '--socket', world.socket, 'status'], { env: world.env(), encoding: 'utf8' });
    expect(status).toMatch(new RegExp(`ready:${pid}\\([^)]*, 1 pinned\\)`));
    const before = updates.length;
    expect(textOf(await pinClient.callTool({ name: 'pin__set_window', arguments: { path: 'editor', text: 'v2' } }))).toBe(
      'updated (notified)',
    );
    await waitFor('resources/updated for the editor', () => updates.slice(before).includes(PIN_EDITOR));
  });

  it('after the holding server is SIGKILLed the subscription is made again on a new instance', async () => {
    const old = must(windowPids('com.example.pin')[0], 'the pinned server');
    process.kill(old, 'SIGKILL');
    await waitFor('the killed server to be gone', () => !alive(old));
    await waitFor('the subscription on a new instance', async () => {
      const r = await pinClient.callTool({ name: 'pin__subscriptions', arguments: {} }).catch(() => undefined);
      return r !== undefined && (JSON.parse(textOf(r)) as string[]).includes(PIN_EDITOR);
    });
    const now = windowPids('com.example.pin');
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(old);
    const before = updates.length;
    expect(textOf(await pinClient.callTool({ name: 'pin__set_window', arguments: { path: 'editor', text: 'v3' } }))).toBe(
      'updated (notified)',
    );
    await waitFor('resources/updated from the new instance', () => updates.slice(before).includes(PIN_EDITOR));
  });

  it('a client subscribing and unsubscribing a window the desktop uses leaves the desktop subscribed', async () => {
    const desktop = async () => ((await deskClient.readResource({ uri: 'mcpd://desktop' })).contents[0] as { text: string }).text;
    // A watched desktop subscribes to every window (a read alone subscribes to nothing).
    await deskClient.subscribeResource({ uri: 'mcpd://desktop' });
    expect(await desktop()).toContain('editor of com.example.desk: v1');
    await deskClient.subscribeResource({ uri: DESK_EDITOR });
    await deskClient.unsubscribeResource({ uri: DESK_EDITOR });
    const subs = JSON.parse(textOf(await deskClient.callTool({ name: 'desk__subscriptions', arguments: {} }))) as string[];
    expect(subs).toContain(DESK_EDITOR);
    expect(textOf(await deskClient.callTool({ name: 'desk__set_window', arguments: { path: 'editor', text: 'desk v2' } }))).toBe(
      'updated (notified)',
    );
    await waitFor('the desktop to show the new content', async () => (await desktop()).includes('desk v2'));
  });
});

function envHost(pid: number): string | undefined {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8');
    return env
      .split('\0')
      .find((kv) => kv.startsWith('WINDOW_HOST='))
      ?.slice('WINDOW_HOST='.length);
  } catch {
    return undefined;
  }
}
