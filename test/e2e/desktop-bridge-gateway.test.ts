import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LinuxBackend } from '../../internal/desktop-host/linux/linux-backend.js';
import { TestWorld } from '../support/core-process.js';
import { DESKTOP_HOST, deskServer, DesktopSession, FIXTURE_APP } from '../support/desktop-session.js';
import { countProcs, waitFor } from '../support/procs.js';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('');

describe('the desktop host behind mcpd: window:// on the caller Desktop, elicitation before side effects', () => {
  const session = new DesktopSession();
  let world: TestWorld;
  let capable: Client;
  let plain: Client;
  let answer: 'accept' | 'decline' = 'accept';
  const asked: { message: string; countWhenAsked: string | null }[] = [];
  const updates: string[] = [];
  const plainUpdates: string[] = [];
  let probe: LinuxBackend;

  /** The fixture's counter label, read straight from the tree (not through the host). */
  const countLabel = async () => {
    const snap = await probe.snapshot({ app: { name: FIXTURE_APP } }, { maxDepth: 10, maxNodes: 100, deadlineMs: Date.now() + 10_000 });
    return snap.nodes.find((n) => n.title?.startsWith('count: '))?.title ?? null;
  };
  const readDesktop = async () => ((await capable.readResource({ uri: 'mcpd://desktop' })).contents[0] as { text: string }).text;
  const click = (c: Client) =>
    c.callTool({ name: 'desk__desktop_click', arguments: { role: 'AXButton', title: 'Increment', app: FIXTURE_APP } });

  beforeAll(async () => {
    await session.start();
    await session.launchFixture();
    probe = new LinuxBackend(session.env());
    world = new TestWorld({ 'profiles/default.yaml': `servers:\n${deskServer(session)}\n`, 'callers.yaml': 'callers: {}\n' });
    await world.startCore();
    capable = await world.gateway('capable', [], { elicitation: {} });
    capable.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push({ message: req.params.message, countWhenAsked: await countLabel() });
      return answer === 'accept' ? { action: 'accept', content: { allow: true } } : { action: 'decline' };
    });
    capable.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    plain = await world.gateway('plain');
    plain.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void plainUpdates.push(n.params.uri));
  });

  afterAll(async () => {
    await probe?.close();
    await world?.cleanup();
    await session.stop();
  });

  it("the fixture's window appears on the caller's mcpd://desktop", async () => {
    const text = await readDesktop();
    expect(text).toContain('window://org.mcpd.desktop-host/focused?priority=90');
    expect(text).toContain(`application ${FIXTURE_APP}`);
    expect(text).toContain('window "mcpd fixture"');
    expect(text).toMatch(/\[push button\] "Increment" actions=Click/);
    expect(text).toContain('[label] "count: 0"');
    expect(countProcs(world.tag, DESKTOP_HOST)).toBe(1);
  });

  it('a click through the gateway asks the user first, then acts; the Desktop follows (resources/updated)', async () => {
    await capable.subscribeResource({ uri: 'mcpd://desktop' });
    const before = updates.length;
    const r = await click(capable);
    expect((r as ToolResult).isError).not.toBe(true);
    expect(JSON.parse(textOf(r))).toMatchObject({ clicked: true });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toContain('desktop.click');
    expect(asked[0]?.countWhenAsked).toBe('count: 0'); // asked before anything was pressed
    expect(await countLabel()).toBe('count: 1');
    await waitFor(
      'the desktop to show the new count',
      async () => updates.length > before && (await readDesktop()).includes('[label] "count: 1"'),
    );
  });

  it('declined: nothing happens and the tool says why', async () => {
    answer = 'decline';
    const r = (await click(capable)) as ToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/refused: the user did not allow desktop_click \(decline\)/);
    expect(asked).toHaveLength(2);
    expect(await countLabel()).toBe('count: 1');
    answer = 'accept';
  });

  it('a client without elicitation is refused clearly, and nothing is pressed', async () => {
    const r = (await click(plain)) as ToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^refused: asking the user failed .*did not declare the "elicitation" capability.*desktop_click did not run/);
    expect(await countLabel()).toBe('count: 1');
  });

  it('read-only tools run without asking', async () => {
    const n = asked.length;
    const r = await capable.callTool({ name: 'desk__desktop_find', arguments: { title: 'count: ', app: FIXTURE_APP } });
    expect(JSON.parse(textOf(r))).toMatchObject({ matched: 1, elementRefs: [{ title: 'count: 1' }] });
    expect(asked).toHaveLength(n);
  });

  it("the last watcher leaving ends the host's window subscriptions (it stops polling); a watcher coming back takes them again", async () => {
    // The host says its count on every (un)subscribe; the core echoes the host's stderr into its log.
    const hostCounts = () => [...world.coreLog.join('').matchAll(/window subscriptions: (\d+)/g)].map((m) => Number(m[1]));
    const lastCount = () => hostCounts().at(-1);
    expect(lastCount()).toBe(3); // capable watches mcpd://desktop since the click test
    await plain.subscribeResource({ uri: 'mcpd://desktop' });
    await capable.unsubscribeResource({ uri: 'mcpd://desktop' });
    // One watcher is left: a change still reaches it.
    const before = plainUpdates.length;
    expect(JSON.parse(textOf(await click(capable)))).toMatchObject({ clicked: true });
    await waitFor('the remaining watcher to hear of the click', () => plainUpdates.length > before);
    expect(await countLabel()).toBe('count: 2');
    expect(lastCount()).toBe(3);
    await plain.unsubscribeResource({ uri: 'mcpd://desktop' });
    await waitFor('the host to count no window subscriptions', () => lastCount() === 0);
    expect(world.coreLog.join('')).toContain('window subscriptions: 0 (not polling)');
    // A read with nobody watching still shows the desktop as it is, without subscribing.
    const n = hostCounts().length;
    expect(await readDesktop()).toContain('[label] "count: 2"');
    expect(hostCounts()).toHaveLength(n);
    await capable.subscribeResource({ uri: 'mcpd://desktop' });
    await waitFor('the host to count three window subscriptions again', () => lastCount() === 3);
    const again = updates.length;
    expect(JSON.parse(textOf(await click(capable)))).toMatchObject({ clicked: true });
    await waitFor(
      'the returning watcher to hear of the click',
      async () => updates.length > again && (await readDesktop()).includes('[label] "count: 3"'),
    );
  });
});
