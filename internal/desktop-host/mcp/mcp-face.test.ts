import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FakeDesktopBackend } from '../../../test/support/fake-desktop-backend.js';
import { waitFor } from '../../../test/support/procs.js';
import { BridgeHost } from '../host.js';
import { realClock } from '../clock.js';
import { DesktopMcpFace } from './mcp-face.js';
import { WINDOWS } from './window-resources.js';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: Record<string, unknown> };

const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcpd-face-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the MCP face of the desktop host (in-memory transport, fake backend)', () => {
  let backend: FakeDesktopBackend;
  let face: DesktopMcpFace;
  const clients: Client[] = [];

  async function connect(capabilities: Record<string, unknown>): Promise<Client> {
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'face-test', version: '1' }, { capabilities });
    await Promise.all([face.server.connect(b), client.connect(a)]);
    clients.push(client);
    return client;
  }

  beforeEach(async () => {
    backend = new FakeDesktopBackend();
    const host = new BridgeHost({ backend, workspaceRoot: root, hostVersion: 't' });
    await host.start();
    face = new DesktopMcpFace(host, { pollMs: 50, log: () => undefined, onClose: () => undefined }, root);
    face.start();
  });
  afterEach(async () => {
    face.stop();
    for (const c of clients.splice(0)) await c.close();
  });

  it('lists three window:// resources and renders the desktop into them', async () => {
    const c = await connect({});
    expect((await c.listResources()).resources.map((r) => r.uri)).toEqual(WINDOWS.map((w) => w.uri));
    const read = async (uri: string) => ((await c.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await read(WINDOWS[0].uri)).toBe('application fake-app (pid 4242)\nwindow "Fake Window"');
    expect(await read(WINDOWS[1].uri)).toContain('    [push button] "Increment" actions=Click id=:1.9/button');
    expect(await read(WINDOWS[2].uri)).toBe('fake-app (pid 4242): "Fake Window"');
    await expect(c.readResource({ uri: 'window://org.mcpd.desktop-host/nope' })).rejects.toThrow(/unknown resource/);
  });

  it('a desktop that cannot be read shows why in every window instead of going blank', async () => {
    const c = await connect({});
    backend.applications = () => Promise.reject(new Error('the accessibility bus is not reachable'));
    const text = ((await c.readResource({ uri: WINDOWS[0].uri })).contents[0] as { text: string }).text;
    expect(text).toBe(
      'desktop not readable: the accessibility bus is not reachable; call desktop_observe or run desktop.doctor for what is missing',
    );
  });

  it('sends resources/updated for a subscribed window whose text changed, not for the others', async () => {
    const c = await connect({});
    const updated: string[] = [];
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await c.readResource({ uri: WINDOWS[1].uri });
    await c.subscribeResource({ uri: WINDOWS[1].uri });
    backend.addLabel(':1.9/new', 'appeared');
    await waitFor('resources/updated for the accessibility window', () => updated.length > 0);
    expect(new Set(updated)).toEqual(new Set([WINDOWS[1].uri]));
  });

  it('a side effect without elicitation support is refused before anything happens', async () => {
    const c = await connect({});
    const r = (await c.callTool({ name: 'desktop_click', arguments: { title: 'Increment' } })) as ToolResult;
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toBe(
      "refused: desktop_click changes the desktop and needs the user's consent, but this MCP client does not support elicitation",
    );
    expect(backend.log).toEqual([]);
  });

  it('accepted: a confirm token is issued and spent; the action runs once', async () => {
    const c = await connect({ elicitation: {} });
    const messages: string[] = [];
    const effectsWhenAsked: number[] = [];
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      messages.push(req.params.message);
      effectsWhenAsked.push(backend.log.length);
      return { action: 'accept', content: { allow: true } };
    });
    const r = (await c.callTool({ name: 'desktop_type', arguments: { elementId: ':1.9/entry', text: 'hi' } })) as ToolResult;
    expect(r.isError).not.toBe(true);
    expect(r.structuredContent).toMatchObject({ typed: true, elementId: ':1.9/entry' });
    expect(messages[0]).toContain('desktop.typeText');
    expect(backend.log).toEqual(['type::1.9/entry']);
    await c.callTool({ name: 'desktop_type', arguments: { elementId: ':1.9/entry', text: 'new', clearBefore: true } });
    const found = (await c.callTool({ name: 'desktop_find', arguments: { role: 'AXTextField' } })) as ToolResult;
    expect(found.structuredContent).toMatchObject({ elementRefs: [{ value: 'new' }] });
    expect(messages[1]).toContain('"options":{"clearBefore":true}');
    expect(effectsWhenAsked).toEqual([0, 1]); // each time asked before acting
  });

  it('an element that does not exist (or no longer does) fails before the user is asked', async () => {
    const c = await connect({ elicitation: {} });
    let asked = 0;
    c.setRequestHandler(ElicitRequestSchema, async () => (asked++, { action: 'accept', content: { allow: true } }));
    const gone = (await c.callTool({ name: 'desktop_click', arguments: { elementId: ':1.9/destroyed' } })) as ToolResult;
    expect(gone.isError).toBe(true);
    expect(gone.content[0]?.text).toMatch(/^DESKTOP_ELEMENT_NOT_FOUND: element :1.9\/destroyed is gone/);
    const none = (await c.callTool({ name: 'desktop_click', arguments: { role: 'AXButton', title: 'No such button' } })) as ToolResult;
    expect(none.content[0]?.text).toMatch(/^DESKTOP_ELEMENT_NOT_FOUND: no element matches the selector .*; the user was not asked/);
    expect(asked).toBe(0);
    expect(backend.log).toEqual([]);
  });

  it('reads are marked read-only and side effects not, so mcpd may run reads while a question waits for its user', async () => {
    const c = await connect({});
    const { tools } = await c.listTools();
    const readOnly = Object.fromEntries(tools.map((t) => [t.name, t.annotations?.readOnlyHint]));
    expect(readOnly).toEqual({
      desktop_observe: true,
      desktop_find: true,
      desktop_wait_until: true,
      desktop_click: false,
      desktop_type: false,
      desktop_hotkey: false,
    });
  });

  it('accept with allow=false, decline and cancel all refuse', async () => {
    const c = await connect({ elicitation: {} });
    const answers = [
      { action: 'accept' as const, content: { allow: false } },
      { action: 'decline' as const },
      { action: 'cancel' as const },
    ];
    c.setRequestHandler(ElicitRequestSchema, async () => answers.shift()!);
    for (const why of ['accept, allow was not true', 'decline', 'cancel']) {
      const r = (await c.callTool({ name: 'desktop_hotkey', arguments: { keys: ['ctrl', 'k'] } })) as ToolResult;
      expect(r.content[0]?.text).toBe(`refused: the user did not allow desktop_hotkey (${why})`);
    }
    expect(backend.log).toEqual([]);
  });

  it('read-only tools run without asking; contract errors come back as tool errors with the code', async () => {
    const c = await connect({});
    const found = (await c.callTool({ name: 'desktop_find', arguments: { role: 'AXButton' } })) as ToolResult;
    expect(found.structuredContent).toMatchObject({ matched: 1 });
    const bad = (await c.callTool({ name: 'desktop_find', arguments: {} })) as ToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/^DESKTOP_INVALID_REQUEST: params.selector must be a selector with at least one of/);
    const timeout = (await c.callTool({
      name: 'desktop_wait_until',
      arguments: { title: 'never', timeoutMs: 30, pollMs: 10 },
    })) as ToolResult;
    expect(timeout.structuredContent).toMatchObject({ error: { code: 'DESKTOP_TIMEOUT' } });
  });
});

describe('an approved action that waits for the desk', () => {
  it("keeps the user's yes while another caller's input holds the desk past the old 30 s token", async () => {
    let now = Date.now();
    const backend = new FakeDesktopBackend(() => now);
    const host = new BridgeHost({ backend, workspaceRoot: root, hostVersion: 't', clock: { now: () => now, sleep: realClock.sleep } });
    await host.start();
    const face = new DesktopMcpFace(host, { pollMs: 50, log: () => undefined, onClose: () => undefined }, root);
    face.start();
    // The core multiplexes its callers' calls on one session to the face.
    const [a, b] = InMemoryTransport.createLinkedPair();
    const core = new Client({ name: 'face-test', version: '1' }, { capabilities: { elicitation: {} } });
    await Promise.all([face.server.connect(b), core.connect(a)]);
    core.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { allow: true } }));
    try {
      // The first caller's typing holds the desk until released; the second caller's click is approved meanwhile.
      let release: () => void = () => undefined;
      let held = false;
      const typing = backend.typeText.bind(backend);
      backend.typeText = async (...args) => {
        await new Promise<void>((r) => {
          release = r;
          held = true;
        });
        return typing(...args);
      };
      const slow = core.callTool({ name: 'desktop_type', arguments: { elementId: ':1.9/entry', text: 'long' } });
      await waitFor('the typing to hold the desk', () => held);
      const click = core.callTool({ name: 'desktop_click', arguments: { elementId: ':1.9/button' } });
      await waitFor('the click to wait for its turn, approved', () => host.tokens.size() === 1);
      now += 90_000;
      release();
      expect(((await slow) as ToolResult).isError).not.toBe(true);
      const clicked = (await click) as ToolResult;
      expect(clicked.content[0]?.text, 'the approved click ran after the wait').not.toMatch(/expired/);
      expect(clicked.isError).not.toBe(true);
      expect(backend.log).toEqual(['type::1.9/entry', 'press::1.9/button']);
    } finally {
      face.stop();
      await core.close();
    }
  });
});
