import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type * as pb from '../../internal/contract/gen/mcpd/control/v1/control.js';
import { callUnary, createControlClient } from '../../internal/contract/grpc/control-client.js';
import { TestWorld } from '../support/core-process.js';
import { MCPDCTL } from '../support/paths.js';
import { countProcs, waitFor } from '../support/procs.js';
import { WINDOW_SERVER, windowServer } from '../support/profiles.js';

const SINGLETON = { strategy: 'singleton', idleSeconds: 300 };

type ToolResult = { content: { type: string; text: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

/** The desktop text split back into windows (each under a "----- window i of n -----" header). */
function windowsOf(text: string): string[] {
  return text === '' ? [] : text.split(/(?:^|\n\n)----- window \d+ of \d+ -----\n/).filter((s) => s !== '');
}

describe('desktop through the core and the gateway', () => {
  let world: TestWorld;
  let agent: Client; // the real mcpdmcp: tool calls
  let ctx: { client: Client };
  const updates: string[] = [];

  const readDesktop = async (uri = 'mcpd://desktop') => {
    const r = await ctx.client.readResource({ uri });
    return (r.contents[0] as { text: string }).text;
  };

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml':
        'servers:\n' +
        windowServer('one', 'com.example.one', SINGLETON) +
        windowServer('two', 'com.example.two', SINGLETON, { WINDOW_FULLSCREEN: '1' }) +
        windowServer('nosub', 'com.example.nosub', SINGLETON, { WINDOW_NO_SUBSCRIBE: '1' }),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    agent = await world.gateway('agent');
    ctx = { client: await world.gateway('agent') }; // the real mcpdmcp
    ctx.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it('lists the desktop resource and template', async () => {
    expect((await ctx.client.listResources()).resources.map((r) => r.uri)).toContain('mcpd://desktop');
    expect((await ctx.client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain(
      'mcpd://desktop{?size,window,format}',
    );
  });

  it('organizes the windows: servers by name, priority within, fullscreen alone, invalid / empty / blob left out', async () => {
    const windows = windowsOf(await readDesktop());
    expect(windows).toEqual([
      'window://com.example.one/editor?priority=80\n\neditor of com.example.one: v1',
      'window://com.example.one/status?priority=10\n\nstatus of com.example.one: idle',
      'window://com.example.two/full?fullscreen=true\n\nfullscreen of com.example.two',
    ]);
    const json = JSON.parse(await readDesktop('mcpd://desktop?format=json')) as { windows: string[]; warnings: string[]; etag: string };
    expect(json.windows).toEqual(windows);
    expect(json.warnings.join('\n')).toMatch(/only blob contents/);
    expect(json.warnings.join('\n')).toMatch(/priority/);
    // Every server was started on demand (the capabilities decide), all three once.
    expect(countProcs(world.tag, WINDOW_SERVER)).toBe(3);
  });

  it('while the desktop is watched, subscribes downstream to each window of the servers that declare resources.subscribe', async () => {
    const subscriptions = async (server: string) =>
      JSON.parse(textOf(await agent.callTool({ name: `${server}__subscriptions`, arguments: {} }))) as string[];
    // Reads alone subscribe to nothing: a server need not watch its windows for nobody.
    expect(await subscriptions('one')).toEqual([]);
    await readDesktop(); // the client holds the current view
    await ctx.client.subscribeResource({ uri: 'mcpd://desktop' });
    const both = ['window://com.example.one/editor?priority=80', 'window://com.example.one/status?priority=10'];
    await waitFor('the core to subscribe to the windows of one', async () => {
      const subs = await subscriptions('one');
      return both.every((u) => subs.includes(u));
    });
    expect(JSON.parse(textOf(await agent.callTool({ name: 'nosub__subscriptions', arguments: {} })))).toEqual([]);
  });

  it('a tool call that reorders servers changes the desktop, and the subscribed client hears it', async () => {
    await readDesktop(); // the client holds the current view
    await ctx.client.subscribeResource({ uri: 'mcpd://desktop' });
    const before = updates.length;
    await agent.callTool({ name: 'two__touch', arguments: {} });
    await waitFor('resources/updated for mcpd://desktop', () => updates.length > before);
    expect(updates.at(-1)).toBe('mcpd://desktop');
    const windows = windowsOf(await readDesktop());
    expect(windows[0]).toMatch(/^window:\/\/com\.example\.two\/full/);
    expect(windows[1]).toMatch(/^window:\/\/com\.example\.one\/editor/);
  });

  it('a window content change reaches the client through the downstream subscription', async () => {
    const before = updates.length;
    expect(textOf(await agent.callTool({ name: 'one__set_window', arguments: { path: 'editor', text: 'editor v2' } }))).toBe(
      'updated (notified)',
    );
    await waitFor('resources/updated after the content change', () => updates.length > before);
    // one is now the most recent server: first again.
    expect(windowsOf(await readDesktop())[0]).toBe('window://com.example.one/editor?priority=80\n\neditor v2');
  });

  it('added and removed windows (list_changed) change the desktop', async () => {
    let before = updates.length;
    await agent.callTool({ name: 'one__add_window', arguments: { path: 'logs', text: 'log line', priority: 50 } });
    await waitFor('an update after add_window', async () => updates.length > before && (await readDesktop()).includes('log line'));
    expect(windowsOf(await readDesktop()).map((w) => w.split('\n')[0])).toEqual([
      'window://com.example.one/editor?priority=80',
      'window://com.example.one/logs?priority=50',
      'window://com.example.one/status?priority=10',
      'window://com.example.two/full?fullscreen=true',
    ]);
    before = updates.length;
    await agent.callTool({ name: 'one__remove_window', arguments: { path: 'logs' } });
    await waitFor('an update after remove_window', async () => updates.length > before && !(await readDesktop()).includes('log line'));
  });

  it('size and window filter via the URI template; a bad query is a clear error', async () => {
    expect(windowsOf(await readDesktop('mcpd://desktop?size=1'))).toHaveLength(1);
    const only = windowsOf(await readDesktop(`mcpd://desktop?window=${encodeURIComponent('window://com.example.one/status')}`));
    expect(only).toEqual(['window://com.example.one/status?priority=10\n\nstatus of com.example.one: idle']);
    await expect(readDesktop('mcpd://desktop?size=many')).rejects.toThrow(/size="many" is not an integer/);
    await expect(readDesktop('mcpd://desktop?colour=red')).rejects.toThrow(/unknown query key "colour"/);
  });

  it('GetDesktop and WatchDesktop over gRPC', async () => {
    const client = createControlClient(world.socket);
    try {
      const r = await callUnary<pb.GetDesktopRequest, pb.GetDesktopResponse>((q, cb) => client.getDesktop(q, cb), {
        caller: 'agent',
        desktopSize: 2,
        window: '',
      });
      expect(r.windows).toHaveLength(2);
      const full = await callUnary<pb.GetDesktopRequest, pb.GetDesktopResponse>((q, cb) => client.getDesktop(q, cb), {
        caller: 'agent',
        window: '',
      });
      const stream = client.watchDesktop({ caller: 'agent' });
      const seen: pb.DesktopChanged[] = [];
      stream.on('data', (c: pb.DesktopChanged) => seen.push(c));
      stream.on('error', () => {});
      await waitFor('the current desktop on the watch', () => seen.length > 0);
      expect(seen[0]?.etag).toBe(full.etag);
      await agent.callTool({ name: 'one__set_window', arguments: { path: 'status', text: 'busy' } });
      await waitFor('a change on the watch', () => seen.some((c) => c.reason.includes('updated')));
      stream.cancel();
      await expect(
        callUnary<pb.GetDesktopRequest, pb.GetDesktopResponse>((q, cb) => client.getDesktop(q, cb), {
          caller: 'agent',
          window: 'http://x',
        }),
      ).rejects.toThrow(/GetDeskTopReq.window/);
    } finally {
      client.close();
    }
  });

  it('mcpdctl desktop prints the windows; --json gives them exactly', () => {
    const run = (...args: string[]) =>
      execFileSync(process.execPath, [MCPDCTL, '--socket', world.socket, ...args], { env: world.env(), encoding: 'utf8' });
    const text = run('desktop', 'agent', '--size', '2');
    expect(text).toMatch(/^----- window 1 of 2 -----\nwindow:\/\/com\.example\./);
    expect(text).toMatch(/warning: .*only blob contents/);
    const json = JSON.parse(run('--json', 'desktop', 'agent', '--window', 'window://com.example.one/status')) as { windows: string[] };
    expect(json.windows).toHaveLength(1);
    expect(json.windows[0]).toMatch(/^window:\/\/com\.example\.one\/status\?priority=10\n\n/);
  });
});
