import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Frame, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectErrors, launchChromium } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { dashboardToken } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { FIXTURES, REPO } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

// MCP Apps in the dashboard's try-it, in chromium against a real core: the official example servers from
// npm (vanilla JS and Preact, stdio) render their app in a sandboxed frame with the tool's result, call
// their server's tool from a button and ask for a resize; the bad-apps fixture's apps (a script that
// throws, a message flood, an oversized message, a CSP that smuggles a directive) leave the page working,
// and a declared connectDomains origin is reachable from the app while another is not.

// docs/dashboard's screenshots of apps are rewritten only on request (MCPD_UPDATE_SCREENSHOTS=1), as in dashboard.test.ts.
const UPDATE_SHOTS = process.env.MCPD_UPDATE_SCREENSHOTS === '1';
const SHOTS = UPDATE_SHOTS ? resolve(REPO, 'docs/dashboard') : mkdtempSync(join(tmpdir(), 'mcpd-app-shots-'));

const example = (pkg: string) => [process.execPath, join(REPO, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js'), '--stdio'];

/** A loopback web server answering every request "reached <name>", readable from any origin. */
async function probeServer(name: string): Promise<{ server: Server; origin: string }> {
  const s = createServer((_req, res) => res.writeHead(200, { 'access-control-allow-origin': '*' }).end(`reached ${name}`));
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const addr = s.address();
  if (!addr || typeof addr === 'string') throw new Error('probe server has no port');
  return { server: s, origin: `http://127.0.0.1:${addr.port}` };
}

describe('MCP Apps in the dashboard try-it', () => {
  let world: TestWorld;
  let port: number;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let allowed: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  const frames: Response[] = [];
  const token = () => dashboardToken(world);

  beforeAll(async () => {
    port = await freePort();
    allowed = await probeServer('allowed');
    other = await probeServer('other');
    world = new TestWorld({
      // The official examples share one URI (ui://get-time/mcp-app.html): each gets a profile of its own.
      'profiles/default.yaml': profile(
        server('vanilla', example('server-basic-vanillajs'), { idleSeconds: 300, maxInstances: 1 }),
        server(
          'bad',
          [process.execPath, `${FIXTURES}/servers/bad-apps.mjs`],
          { idleSeconds: 300, maxInstances: 1 },
          {
            APP_ALLOWED_ORIGIN: allowed.origin,
            APP_OTHER_ORIGIN: other.origin,
          },
        ),
      ),
      'profiles/web.yaml': profile(server('preact', example('server-basic-preact'), { idleSeconds: 300, maxInstances: 1 })),
      'callers.yaml': 'callers: { vscode: default, web: web }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
    browser = await launchChromium(world.env());
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('response', (r) => void (r.url().includes('/app/frame/') && frames.push(r)));
    errors = collectErrors(page);
    await page.goto(`http://127.0.0.1:${port}/?token=${token()}#/caller/vscode/tools`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
    allowed?.server.close();
    other?.server.close();
    if (!UPDATE_SHOTS) rmSync(SHOTS, { recursive: true, force: true });
  });

  /** Opens a tool's try-it on a caller's page and runs it; returns the app's section. */
  const runTool = async (caller: string, tool: string) => {
    await page.evaluate(`location.hash = '#/caller/${caller}/tools'`);
    await page.getByRole('searchbox', { name: 'search tools' }).fill(tool);
    const form = page.getByRole('form', { name: `try ${tool}` });
    if (!(await form.isVisible())) await page.getByRole('button', { name: tool, exact: true }).click();
    await form.getByRole('button', { name: 'Run' }).click();
    return page.getByRole('region', { name: `app of ${tool}` });
  };
  /** The app's frame once it finished its handshake. */
  const appFrame = async (tool: string): Promise<Frame> => {
    const el = page.locator(`iframe[title="app of ${tool}"][data-ready="yes"]`);
    await el.waitFor({ timeout: 30_000 });
    const f = await (await el.elementHandle())?.contentFrame();
    if (!f) throw new Error(`no frame for ${tool}`);
    return f;
  };
  const resultText = async () => ((await page.getByTestId('result').locator('pre.text').first().textContent()) ?? '').trim();

  it('the vanilla JS example renders its app with the result, calls its tool from a button and resizes its frame', async () => {
    await runTool('vscode', 'vanilla__get-time');
    const app = await appFrame('vanilla__get-time');
    await page.getByTestId('result').waitFor({ state: 'attached' });
    const first = await resultText();
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT/);
    const time = app.locator('#server-time');
    await expect.poll(() => time.textContent(), { timeout: 20_000 }).toBe(first);
    // The button calls get-time through the bridge → the page's socket → the door, as caller vscode.
    await app.getByRole('button', { name: 'Get Server Time' }).click();
    await expect
      .poll(async () => (await time.textContent()) !== first && /^\d{4}-/.test((await time.textContent()) ?? ''), { timeout: 20_000 })
      .toBe(true);
    // Its frame took the height the app asked for (its document's), not the initial 160 px.
    const iframe = page.locator('iframe[title="app of vanilla__get-time"]');
    const asked = (await app.evaluate('Math.ceil(document.documentElement.getBoundingClientRect().height)')) as number;
    await expect.poll(async () => Number(await iframe.getAttribute('height')), { timeout: 10_000 }).toBe(Math.min(asked, 900));
    expect(asked).not.toBe(160);
    await iframe.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'mcp-app.png') });
    // Sandboxed without the dashboard's origin: the app cannot reach the page.
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts');
    expect(await app.evaluate('origin')).toBe('null');
    expect(await app.evaluate('(() => { try { return String(parent.document.title); } catch { return "blocked"; } })()')).toBe('blocked');
    expect(errors).toEqual([]);
  }, 120_000);

  it('the frame was served once, with the CSP of the MCP Apps spec and a sandbox of its own', async () => {
    const r = frames.at(-1);
    expect(r?.status()).toBe(200);
    const csp = (await r?.allHeaders())?.['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("script-src 'unsafe-inline'");
    expect(csp).toContain('sandbox allow-scripts');
    expect((await r?.allHeaders())?.['x-frame-options']).toBeUndefined();
    // Single use: the same URL again (no login needed, none given) is gone.
    const again = await fetch(r?.url() ?? '');
    expect(again.status).toBe(404);
    expect(await again.text()).toContain('used or has expired');
    // Logged for review: whose app, and the CSP it ran under.
    const line = await world.waitForLogLine('the prepared frame is logged', /dashboard\.app_frame/);
    expect(line).toMatch(/ui:\/\/get-time\/mcp-app\.html/);
    expect(line).toMatch(/connect-src 'none'/);
  }, 60_000);

  it('the Preact example renders its app for another caller, and its button works too', async () => {
    await runTool('web', 'preact__get-time');
    const app = await appFrame('preact__get-time');
    await page.getByTestId('result').waitFor({ state: 'attached' });
    const first = await resultText();
    const time = app.locator('p', { hasText: 'Server Time:' }).locator('code');
    await expect.poll(() => time.textContent(), { timeout: 20_000 }).toBe(first);
    await app.getByRole('button', { name: 'Get Server Time' }).click();
    await expect.poll(async () => (await time.textContent()) !== first, { timeout: 20_000 }).toBe(true);
    expect(errors).toEqual([]);
  }, 120_000);

  it('misbehaving apps are cut off or reported in their frame area, and the page goes on working', async () => {
    const thrown = await runTool('vscode', 'bad__throws');
    await thrown
      .getByRole('alert')
      .filter({ hasText: /The app reported an error: .*the app exploded on purpose/ })
      .waitFor();

    const flood = await runTool('vscode', 'bad__flood');
    await flood
      .getByRole('alert')
      .filter({ hasText: /The app was stopped: the app sent more than 50 messages a second/ })
      .waitFor();
    expect(await flood.locator('iframe').count()).toBe(0);
    await flood.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'mcp-app-stopped.png') });

    const big = await runTool('vscode', 'bad__oversized');
    await big
      .getByRole('alert')
      .filter({ hasText: /The app was stopped: the app sent a message of \d+ characters; the limit is 524288/ })
      .waitFor();
    expect(await big.locator('iframe').count()).toBe(0);

    const csp = await runTool('vscode', 'bad__bad-csp');
    await csp
      .getByRole('alert')
      .filter({ hasText: /The app cannot be shown: .*_meta\.ui\.csp\.connectDomains\[0\] .* is not an origin/ })
      .waitFor();
    expect(await csp.locator('iframe').count()).toBe(0);

    // The page is alive: another app opens and answers.
    await runTool('vscode', 'vanilla__get-time');
    const app = await appFrame('vanilla__get-time');
    await app.getByRole('button', { name: 'Get Server Time' }).click();
    await expect.poll(() => app.locator('#server-time').textContent(), { timeout: 20_000 }).toMatch(/^\d{4}-/);
    // Chromium reports the app's own uncaught error as the page's; nothing else went wrong.
    expect(errors).toEqual(['pageerror: the app exploded on purpose']);
  }, 180_000);

  it("an app calls only its own server's tools that allow apps, as the page's caller", async () => {
    await runTool('vscode', 'bad__prober');
    const app = await appFrame('bad__prober');
    const calls = app.locator('#calls li');
    await expect.poll(() => calls.count(), { timeout: 20_000 }).toBe(3);
    expect(await calls.allTextContents()).toEqual([
      'app-only: app-only ran',
      'model-only: refused: tool "model-only" is not callable by apps (its _meta.ui.visibility is ["model"])',
      'get-time: refused: the app may call only tools of its server "bad"; the caller sees no tool "get-time" there',
    ]);
    // The call went through the door (its history interceptor logs it) as the page's caller.
    await world.waitForLogLine("the door logs the app's call", /vscode called bad__app-only: ok/);
  }, 120_000);

  it('an app reaches the origin its resource declares in connectDomains, and no other', async () => {
    await runTool('vscode', 'bad__fetcher');
    const el = page.locator('iframe[title="app of bad__fetcher"]');
    await el.waitFor();
    const app = await (await el.elementHandle())?.contentFrame();
    if (!app) throw new Error('no fetcher frame');
    await expect.poll(() => app.locator('#allowed').textContent(), { timeout: 20_000 }).toBe('allowed: reached allowed');
    await expect.poll(() => app.locator('#other').textContent(), { timeout: 20_000 }).toBe('other: blocked');
  }, 120_000);

  it('an MCP client of mcpd gets the app as the server gave it: the tool keeps its _meta.ui, the ui:// resource reads', async () => {
    const client = await world.gateway('vscode');
    const tool = (await client.listTools()).tools.find((t) => t.name === 'vanilla__get-time');
    expect(tool?._meta).toMatchObject({ ui: { resourceUri: 'ui://get-time/mcp-app.html' } });
    const read = await client.readResource({ uri: 'ui://get-time/mcp-app.html' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    expect(String((read.contents[0] as { text?: string }).text)).toContain('Get Server Time');
  }, 60_000);

  it('with an app open, the page passes the contrast and naming checks', async () => {
    await runTool('vscode', 'vanilla__get-time');
    await appFrame('vanilla__get-time');
    const axe = readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');
    if ((await page.evaluate('typeof axe')) !== 'object') await page.evaluate(axe);
    const violations = (await page.evaluate(
      `axe.run(document.querySelector('main') ?? document.body, { iframes: false, runOnly: ['color-contrast', 'frame-title', 'button-name', 'label'] }).then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
    )) as string[];
    expect(violations).toEqual([]);
  }, 120_000);
});
