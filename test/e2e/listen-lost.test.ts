import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestWorld } from '../support/core-process.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

// A 2026-07-28 server may end the core's subscriptions/listen streams while it keeps running (the empty
// listen result, as SDK v2's server sends on shutdown, or notifications/cancelled for the listen id). The
// core then no longer hears list changes: its ttlMs-0 lists must count as changed, not stay "covered", and
// it listens again (docs/eras.md). era2026.mjs's `end-listens` ends the streams, `hold` keeps the core's
// re-listen waiting until `allow-listens`; `reveal` and `toggle` change the tool list without a
// list_changed reaching anyone (reveal never sends one; toggle's goes nowhere while no stream is open).

type ToolResult = { content: { type: string; text?: string }[] };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** Counts a notification a client hears; `reach(n)` waits for the n-th. */
class Heard {
  count = 0;
  readonly values: string[] = [];
  private waiters: (() => void)[] = [];

  hear(value = ''): void {
    this.count++;
    this.values.push(value);
    for (const w of this.waiters.splice(0)) w();
  }

  async reach(n: number, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (this.count < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`heard ${this.count} of ${n} (${what})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }
}

describe('a 2026-07-28 server that ends the core’s listen streams', () => {
  let world: TestWorld;
  let client: Client;
  const toolsChanged = new Heard();
  const updated = new Heard();
  const tools = async () => (await client.listTools()).tools.map((t) => t.name);
  const call = async (name: string, args: Record<string, unknown> = {}) => textOf(await client.callTool({ name, arguments: args }));

  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(
        server(
          'lost',
          [process.execPath, `${FIXTURES}/servers/era2026.mjs`],
          { idleSeconds: 300, maxInstances: 1 },
          { ERA2026_LIST_TTL_MS: '0' },
        ),
      ),
      'callers.yaml': 'callers: {}\n',
    });
    await world.startCore();
    client = await world.gateway('lost', []);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => toolsChanged.hear());
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.hear(n.params.uri));
    expect(await tools()).toContain('lost__end-listens');
  });
  afterAll(async () => world?.cleanup());

  it('a silent change shows once the stream ended, and list_changed is heard again once the core re-listened', async () => {
    // Listening: the ttlMs-0 list is covered by the stream, so a silent change is not seen.
    expect(await call('lost__reveal')).toBe('revealed');
    expect(await tools()).not.toContain('lost__quiet');

    // The server ends the stream; the core's re-listen is held. The core counts the list as changed: it
    // lists again, finds quiet, and tells its callers.
    const before = toolsChanged.count;
    expect(await call('lost__end-listens', { hold: true })).toBe('ended 1');
    await world.waitForLogLine('the core to notice the ended stream', /subscriptions\/listen for list changes ended \(graceful\)/, 20_000);
    await toolsChanged.reach(before + 1, 'the list re-listed after the stream ended');
    expect(await tools()).toContain('lost__quiet');

    // Not listening: what the server lists now is stale at once, so the next listing sees a silent change.
    const second = toolsChanged.count;
    expect(await call('lost__toggle')).toBe('on');
    expect(await tools()).toContain('lost__toggled');
    // That listing found a change: its list_changed reaches the caller before the next step counts.
    await toolsChanged.reach(second + 1, 'the toggled list');

    // The re-listen goes through: once the core says it is back, a change the server announces reaches
    // the caller again without anyone listing (grow sends tools/list_changed on the new stream).
    expect(await call('lost__allow-listens')).toMatch(/^allowed/);
    await world.waitForLogLine('the core to listen again', /subscriptions\/listen for list changes is back \(after \d+ attempts?\)/);
    // A list_changed of the core's own re-list may still be on its way: list again on each until grown shows
    // (a listing does not re-list after grow by itself: the list is covered again, or its re-list predates grow).
    let seen = toolsChanged.count;
    expect(await call('lost__grow')).toBe('grew');
    let names = await tools();
    while (!names.includes('lost__grown')) {
      await toolsChanged.reach(seen + 1, 'grow announced on the re-opened stream');
      seen = toolsChanged.count;
      names = await tools();
    }
  });

  it('a resource subscription survives its stream’s end: the core re-listens and the updates come again', async () => {
    const info = (await client.listResources()).resources.find((r) => r.uri.startsWith('era://info'));
    expect(info).toBeDefined();
    const uri = info!.uri;
    await client.subscribeResource({ uri });
    expect(await call('lost__touch')).toBe('touched');
    await updated.reach(1, 'touch while subscribed');

    // Both streams end (a remote end this time); the re-opened resource stream says the resource may
    // have changed meanwhile, and touch reaches the subscriber again.
    expect(await call('lost__end-listens', { how: 'cancelled' })).toBe('ended 2');
    await world.waitForLogLine('the resource stream to end', /subscriptions\/listen for resource era:\/\/info ended \(remote\)/, 20_000);
    await updated.reach(2, 'the re-opened resource stream');
    await world.waitForLogLine('the resource stream to be back', /subscriptions\/listen for resource era:\/\/info is back/);
    expect(await call('lost__touch')).toBe('touched');
    await updated.reach(3, 'touch after the re-listen');
    expect(updated.values).toEqual([uri, uri, uri]);
    await client.unsubscribeResource({ uri });
  });
});
