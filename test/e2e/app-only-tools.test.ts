import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectErrors, launchChromium } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { freePort } from '../support/free-port.js';
import { FIXTURES, MCPDMCP } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

// MCP Apps in front of servers (decision 71): the core declares the UI extension to the servers it runs, so
// the ui-gated fixture — which registers its app tools only for hosts that declare it, once at initialize
// (2025-11-25, SDK v1) or per request (2026-07-28, SDK v2) — gives mcpd its app tools in both eras. MCP
// clients of mcpdmcp (both eras) then get the model-visible ones and not the app-only one, and a call of
// that one is refused; the dashboard, which hosts apps, lists it marked and the app calls it (chromium).

const gated = (era: string) => [process.execPath, `${FIXTURES}/servers/ui-gated.mjs`, '--era', era];
const LIVE = { idleSeconds: 300, maxInstances: 1 };
const APP_ONLY = /tool g2[56]__board-refresh is for its MCP App only \(its _meta\.ui\.visibility is \["app"\]\)/;

describe('app-only tools of MCP Apps', () => {
  let world: TestWorld;
  let port: number;
  let browser: Browser | undefined;

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': profile(server('g25', gated('2025'), LIVE), server('g26', gated('2026'), LIVE)),
      // The same servers behind tool search mode: the search tool and the call tool answer for the catalog.
      'profiles/search.yaml': `toolSearch: true\n${profile(server('g26', gated('2026'), LIVE))}`,
      'callers.yaml': 'callers: { vscode: default, finder: search }\n',
      // A loaded machine may take a while to start both servers: the first listings wait for them.
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\nlistingBudgetSeconds: 60\n`,
    });
    await world.startCore();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
  });

  it('a 2025-11-25 client of mcpdmcp gets the app tools of both eras but not the app-only one, and may not call it', async () => {
    const client = await world.gateway('vscode');
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['g25__board', 'g25__plain', 'g26__board', 'g26__plain']);
    // Each server saw the UI extension declared: its board links the app (text-only hosts get it without).
    expect(tools.find((t) => t.name === 'g25__board')?._meta).toMatchObject({ ui: { resourceUri: 'ui://ui-gated-2025/board.html' } });
    expect(tools.find((t) => t.name === 'g26__board')?._meta).toMatchObject({ ui: { resourceUri: 'ui://ui-gated-2026/board.html' } });
    await expect(client.callTool({ name: 'g25__board-refresh', arguments: {} })).rejects.toThrow(APP_ONLY);
    await expect(client.callTool({ name: 'g26__board-refresh', arguments: {} })).rejects.toThrow(APP_ONLY);
    // The model-visible tool of an app runs as any tool does.
    const board = (await client.callTool({ name: 'g26__board', arguments: {} })) as { content: { text: string }[] };
    expect(board.content[0]?.text).toBe('board (2026)');
  }, 60_000);

  it('a 2026-07-28 client of mcpdmcp gets the same list, and the same refusal', async () => {
    const c = new ModernClient({ name: 'apps-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await c.connect(
      new ModernStdio({
        command: process.execPath,
        args: [MCPDMCP, 'vscode', '--socket', world.socket, '--config', world.configDir],
        env: world.env() as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      expect(c.getProtocolEra()).toBe('modern');
      expect((await c.listTools()).tools.map((t) => t.name).sort()).toEqual(['g25__board', 'g25__plain', 'g26__board', 'g26__plain']);
      await expect(c.callTool({ name: 'g25__board-refresh', arguments: {} })).rejects.toThrow(APP_ONLY);
    } finally {
      await c.close();
    }
  }, 60_000);

  it('in tool search mode, the search tool does not find the app-only tool and the call tool refuses it', async () => {
    const client = await world.gateway('finder');
    const found = (await client.callTool({ name: 'mcpd_search_tools', arguments: { query: 'board refresh', limit: 10 } })) as unknown as {
      structuredContent: { total: number; tools: { name: string }[] };
    };
    // board-refresh is the best match for these words: its absence is the door's doing. Counted: board, plain.
    expect(found.structuredContent.tools.map((t) => t.name)).toEqual(['g26__board']);
    expect(found.structuredContent.total).toBe(2);
    await expect(client.callTool({ name: 'mcpd_call_tool', arguments: { name: 'g26__board-refresh', arguments: {} } })).rejects.toThrow(
      APP_ONLY,
    );
    const board = (await client.callTool({ name: 'mcpd_call_tool', arguments: { name: 'g26__board', arguments: {} } })) as {
      content: { text: string }[];
    };
    expect(board.content[0]?.text).toBe('board (2026)');
  }, 60_000);

  it("gRPC, the operators' face, lists the app-only tool with its visibility", async () => {
    const tools = await world.calls().listTools({ caller: 'vscode', cursor: '', pageSize: 0 });
    const refresh = tools.tools.find((t) => t.name === 'g26__board-refresh');
    expect(JSON.parse(refresh?.toolJson.toString('utf8') ?? '{}')).toMatchObject({ _meta: { ui: { visibility: ['app'] } } });
  }, 60_000);

  it("the dashboard lists the app-only tool marked, and the board's app calls it through the door as the caller", async () => {
    browser = await launchChromium(world.env());
    const page: Page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const errors = collectErrors(page);
    const token = (JSON.parse(readFileSync(join(world.dir, 'run', 'dashboard.json'), 'utf8')) as { token: string }).token;
    await page.goto(`http://127.0.0.1:${port}/?token=${token}#/caller/vscode/tools`);
    const refreshRow = page.locator('li[data-tool="g26__board-refresh"]');
    await expect.poll(() => refreshRow.locator('.badge', { hasText: 'app only' }).count(), { timeout: 30_000 }).toBe(1);
    expect(await page.locator('li[data-tool="g26__board"] .badge', { hasText: 'app only' }).count()).toBe(0);

    for (const era of ['2025', '2026']) {
      const tool = `g${era.slice(2)}__board`;
      await page.getByRole('searchbox', { name: 'search tools' }).fill(tool);
      const form = page.getByRole('form', { name: `try ${tool}` });
      if (!(await form.isVisible())) await page.getByRole('button', { name: tool, exact: true }).click();
      await form.getByRole('button', { name: 'Run' }).click();
      const el = page.locator(`iframe[title="app of ${tool}"][data-ready="yes"]`);
      await el.waitFor({ timeout: 30_000 });
      const app = await (await el.elementHandle())?.contentFrame();
      if (!app) throw new Error(`no frame for ${tool}`);
      await expect.poll(() => app.locator('#refreshed').textContent(), { timeout: 30_000 }).toBe(`refreshed: board refreshed (${era})`);
      await world.waitForLogLine(`the door logs the app's call (${era})`, new RegExp(`vscode called ${tool}-refresh: ok`));
      await page.getByRole('button', { name: tool, exact: true }).click(); // closes the tool (and its app)
    }
    expect(errors).toEqual([]);
  }, 180_000);
});
