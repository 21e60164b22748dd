import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { io as ioClient } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectErrors, distinctColours, launchChromium } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { freePort } from '../support/free-port.js';
import { DIST, FIXTURES, MCPD, REPO } from '../support/paths.js';
import { echoServer, everythingServer, server, windowServer } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';
import { must } from '../../internal/shared/must.js';

const run = promisify(execFile);
// docs/dashboard's screenshots are rewritten only on request (MCPD_UPDATE_SCREENSHOTS=1): a plain test run
// must not leave the working tree changed. Otherwise they go to a temp dir and are still checked.
const UPDATE_SHOTS = process.env.MCPD_UPDATE_SCREENSHOTS === '1';
const SHOTS = UPDATE_SHOTS ? resolve(REPO, 'docs/dashboard') : mkdtempSync(join(tmpdir(), 'mcpd-dashboard-shots-'));
const DOCS_SERVER = join(DIST, 'cmd/mcpd-docs/main.js');

/** A singleton that stays up for the whole file. */
const singleton = (name: string, cmd: string[], env: Record<string, string> = {}): string =>
  server(name, cmd, { strategy: 'singleton', idleSeconds: 300 }, env);

/** Every page of the dashboard. */
const PAGE_HASHES = [
  '#/overview',
  '#/caller/vscode/tools',
  '#/caller/vscode/resources',
  '#/caller/vscode/prompts',
  '#/logs',
  '#/desktop/vscode',
  '#/finder/vscode',
  '#/config',
  '#/connect/vscode',
];

interface Record_ {
  url: string;
  token: string;
}

describe('the dashboard in a real browser against a real core', () => {
  let world: TestWorld;
  let port: number;
  let agent: Client; // another MCP client: the real mcpdmcp gateway
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  const record = (): Record_ => JSON.parse(readFileSync(join(world.dir, 'run', 'dashboard.json'), 'utf8')) as Record_;
  const base = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml':
        'servers:\n' +
        everythingServer('everything') +
        echoServer('echo', { strategy: 'singleton', idleSeconds: 300 }) +
        windowServer('windows', 'com.example.one', { strategy: 'singleton', idleSeconds: 300 }) +
        singleton('docs', [process.execPath, DOCS_SERVER, '--host', 'docs', join(FIXTURES, 'docs')]),
      'callers.yaml': 'callers: { vscode: default, agent: default }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
    agent = await world.gateway('agent', ['--no-autostart']); // the restart test starts the next core itself
    browser = await launchChromium(world.env()); // tagged: the clean-up proves every chromium process is gone
    ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await ctx.newPage();
    errors = collectErrors(page);
    mkdirSync(SHOTS, { recursive: true });
    await page.goto(`${base()}/?token=${record().token}#/overview`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
    if (!UPDATE_SHOTS) rmSync(SHOTS, { recursive: true, force: true });
  });

  it('publishes a random token in the 0700 state directory', () => {
    const dir = join(world.dir, 'run');
    expect(readFileSync(join(dir, 'dashboard.json'), 'utf8')).toContain(`"url":"${base()}"`);
    expect(record().token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statMode(dir)).toBe(0o700);
    expect(statMode(join(dir, 'dashboard.json'))).toBe(0o600);
  });

  it('serves its static page but no login without the token, a wrong token, or with a foreign Host/Origin', async () => {
    const { token } = record();
    const login = (html: string) => /<meta name="mcpd-session"/.test(html);
    // The page is the same code for everyone (what it may do needs a login), and sets no cookie.
    const plain = await fetch(`${base()}/`);
    expect(plain.status).toBe(200);
    expect(login(await plain.text())).toBe(false);
    expect((await fetch(`${base()}/app/app.js`)).status).toBe(200);
    expect((await fetch(`${base()}/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
    const ok = await fetch(`${base()}/?token=${token}`, { redirect: 'manual' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toBeNull();
    expect(login(await ok.text())).toBe(true);
    // DNS rebinding: the page (and so a login) asked for under another name or origin.
    expect((await rawGet(port, `/?token=${token}`, { host: `evil.example:${port}` })).status).toBe(403);
    expect((await rawGet(port, `/?token=${token}`, { host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawGet(port, '/', { host: `127.0.0.1:${port}`, origin: `http://localhost:${port + 1}` })).status).toBe(403);
    // /metrics stays where it was.
    expect((await fetch(`${base()}/metrics`)).status).toBe(200);
  }, 180_000);

  it('refuses the socket without the token and from a foreign Origin; accepts it with the token as a bearer', async () => {
    const { token } = record();
    const authorization = `Bearer ${token}`;
    // Refused at the Socket.IO handshake already, before any namespace.
    expect(await socketOutcome(base(), {})).not.toBe('connected');
    expect(await socketOutcome(base(), { authorization: 'Bearer wrong' })).not.toBe('connected');
    expect(await socketOutcome(base(), { cookie: `mcpd_app_${port}=${token}` })).not.toBe('connected'); // no cookie is a credential
    expect(await socketOutcome(base(), { authorization, origin: 'http://evil.example' })).not.toBe('connected');
    expect(await socketOutcome(base(), { authorization, host: `evil.example:${port}` })).not.toBe('connected');
    expect(await socketOutcome(base(), { authorization, origin: base() })).toBe('connected');
  }, 180_000);

  it('every page loads without console errors, shows real content, and is screenshotted', async () => {
    expect(new URL(page.url()).search).toBe(''); // the token left the address bar
    const prompts = (await agent.listPrompts()).prompts.map((p) => p.name);
    const pages: [string, string, string[], string?][] = [
      ['overview', '#/overview', ['everything', 'echo', 'windows', 'vscode']],
      ['caller-tools', '#/caller/vscode/tools', ['everything__get-sum', 'echo__slow']],
      ['caller-resources', '#/caller/vscode/resources', ['mcpd://desktop', 'mcpd://desktop{?size,window,format}'], 'mcpd://'],
      ['caller-prompts', '#/caller/vscode/prompts', [must(prompts[0], 'a prompt')]],
      ['logs', '#/logs', ['caller attached']],
      ['desktop', '#/desktop/vscode', ['window://com.example.one/editor?priority=80', 'editor of com.example.one: v1']],
      ['finder', '#/finder/vscode', ['Developer Guide', 'Meeting notes']],
      ['config', '#/config', ['profiles/default.yaml', 'callers.yaml']],
      ['connect', '#/connect/vscode', ['Claude Desktop', 'mcpdmcp/main.js']],
    ];
    for (const [name, hash, expected, search] of pages) {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      if (search) {
        await page.getByRole('searchbox').first().waitFor();
        for (const box of await page.getByRole('searchbox').all()) await box.fill(search);
      }
      for (const text of expected) {
        await page
          .locator('main')
          .getByText(text, { exact: false })
          .first()
          .waitFor({ timeout: 20_000 })
          .catch(async (e: Error) => {
            throw new Error(`${name}: ${e.message}\nthe page shows: ${(await page.locator('main').innerText()).slice(0, 2000)}`);
          });
      }
      const png = await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
      expect(await distinctColours(browser, png), `${name} screenshot is blank`).toBeGreaterThan(8);
    }
    expect(errors).toEqual([]);
  }, 180_000);

  it('every page passes the checks a person would make, at 1280×800 and on a phone (390×844)', async () => {
    const axe = readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');
    const problems: string[] = [];
    for (const [w, h, tag] of [
      [1280, 800, 'desktop'],
      [390, 844, 'phone'],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      for (const hash of PAGE_HASHES) {
        await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
        await page.locator('main h1').waitFor();
        await page.locator('main').getByText('loading…').first().waitFor({ state: 'detached' });
        const where = `${hash} at ${w}×${h}`;
        const h1s = await page.locator('h1').count();
        if (h1s !== 1) problems.push(`${where}: ${h1s} <h1> elements, not one`);
        // Nothing wider than the window: no sideways scrolling of the page.
        const overflow = (await page.evaluate(`document.documentElement.scrollWidth - innerWidth`)) as number;
        if (overflow > 0) problems.push(`${where}: the page is ${overflow}px wider than the window`);
        // Keyboard focus visible: the first Tab stop gets an outline a person can see.
        // From the first link of the header (a known starting point), one Tab forward.
        await page.locator('header a').first().focus();
        await page.keyboard.press('Tab');
        const outline = (await page.evaluate(
          `(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle === 'none' ? 0 : parseFloat(s.outlineWidth); })()`,
        )) as number;
        if (outline < 2) problems.push(`${where}: keyboard focus has no visible outline`);
        // Text contrast ≥ 4.5:1 (WCAG AA), measured by axe-core in the page (run over CDP: the page's CSP stays on).
        if ((await page.evaluate('typeof axe')) !== 'object') await page.evaluate(axe);
        const contrast = (await page.evaluate(
          `axe.run(document, { runOnly: ['color-contrast'] }).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary.split('\\n').pop())))`,
        )) as string[];
        for (const c of contrast) problems.push(`${where}: ${c}`);
        await page.screenshot({ path: join(SHOTS, `${hash.replace(/[#/]+/g, '-').replace(/^-|-$/g, '')}-${tag}.png`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems).toEqual([]);
    expect(errors).toEqual([]);
  }, 300_000);

  it('a tool run from the try-it form returns the server result, with progress and cancel', async () => {
    await page.evaluate(`location.hash = '#/caller/vscode/tools'`);
    await page.getByRole('searchbox', { name: 'search tools' }).fill('get-sum');
    await page.getByRole('button', { name: 'everything__get-sum', exact: true }).click();
    const form = page.getByRole('form', { name: 'try everything__get-sum' });
    await form.getByLabel(/^a/).fill('2');
    await form.getByLabel(/^b/).fill('40');
    await form.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('result').getByText(/42/).waitFor();
    await page.screenshot({ path: join(SHOTS, 'try-it.png') });

    // A long call: progress arrives, Cancel stops it.
    await page.getByRole('searchbox', { name: 'search tools' }).fill('echo__slow');
    await page.getByRole('button', { name: 'echo__slow', exact: true }).click();
    const slow = page.getByRole('form', { name: 'try echo__slow' });
    await slow.getByLabel(/^arguments/).fill('{"steps": 400, "ms": 25}');
    await slow.getByRole('button', { name: 'Run' }).click();
    // Progress from the server reaches the page: "n/400".
    await page
      .getByRole('status')
      .filter({ hasText: /\d+\/400/ })
      .waitFor();
    await slow.getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /cancel/i })
      .waitFor();
    expect(await page.getByTestId('result').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 180_000);

  it('try-it renders rich results: images, structured content, embedded resources', async () => {
    await page.evaluate(`location.hash = '#/caller/vscode/tools'`);
    const open = async (name: string) => {
      await page.getByRole('searchbox', { name: 'search tools' }).fill(name);
      await page.getByRole('button', { name, exact: true }).click();
      return page.getByRole('form', { name: `try ${name}` });
    };
    await (await open('everything__get-tiny-image')).getByRole('button', { name: 'Run' }).click();
    await page.locator('[data-testid="result"] img.content-image').waitFor();
    expect(await page.evaluate(`document.querySelector('[data-testid="result"] img.content-image').naturalWidth`)).toBeGreaterThan(0);

    const weather = await open('everything__get-structured-content');
    await weather.getByLabel(/^location/).selectOption('Chicago');
    await weather.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('result').getByText('structured content').waitFor();
    await page.getByTestId('result').locator('details pre', { hasText: '"temperature": ' }).waitFor();

    await (await open('everything__get-resource-reference')).getByRole('button', { name: 'Run' }).click();
    await page
      .getByTestId('result')
      .getByText(/embedded resource/)
      .first()
      .waitFor();
    expect(errors).toEqual([]);
  }, 180_000);

  it('resources: read, subscribe, and updates arrive', async () => {
    await page.evaluate(`location.hash = '#/caller/vscode/resources'`);
    await page.getByLabel('Read a URI').fill('window://com.example.one/status?priority=10');
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    const detail = page.getByRole('region', { name: 'resource window://com.example.one/status?priority=10' });
    await detail.getByText('status of com.example.one: idle').waitFor();
    await detail.getByRole('button', { name: 'Subscribe' }).click();
    await detail.getByText('subscribed · 0 updates').waitFor();
    await agent.callTool({ name: 'windows__set_window', arguments: { path: 'status', text: 'status busy' } });
    await detail.getByText('subscribed · 1 updates').waitFor();
    await detail.getByText('status busy').waitFor();
    await detail.getByRole('button', { name: 'Unsubscribe' }).click();
    // A context channel reads as the gateway serves it.
    await page.getByLabel('Read a URI').fill('mcpd://desktop?size=1');
    await page.getByRole('button', { name: 'Read', exact: true }).click();
    await page.getByRole('region', { name: 'resource mcpd://desktop?size=1' }).getByText('----- window 1 of 1 -----').waitFor();
    // A resource opened from far down the list shows its content in view, not at the top of the page.
    await page.getByRole('searchbox', { name: 'search resources' }).fill('');
    const list = page.locator('.list', { has: page.getByRole('searchbox', { name: 'search resources' }) });
    const last = list.locator('li button.link').last();
    await last.scrollIntoViewIfNeeded();
    const uri = await last.evaluate((b) => b.closest('li')?.querySelector('code')?.textContent ?? '');
    await last.click();
    const opened = page.getByRole('region', { name: `resource ${uri}` });
    await opened.waitFor();
    expect(await inView(page, opened)).toBe(true);
    expect(errors).toEqual([]);
  }, 180_000);

  it('prompts: completions in the argument fields, get renders the messages', async () => {
    await page.evaluate(`location.hash = '#/caller/vscode/prompts'`);
    await page.getByRole('searchbox', { name: 'search prompts' }).fill('completable');
    await page.getByRole('button', { name: 'everything__completable-prompt', exact: true }).click();
    const form = page.getByRole('form', { name: 'get prompt everything__completable-prompt' });
    await form.getByLabel(/^department/).fill('Eng');
    await page.locator('datalist[id$="-department-options"] option[value="Engineering"]').waitFor({ state: 'attached' });
    await form.getByLabel(/^department/).fill('Engineering');
    await form.getByLabel(/^name/).fill('A');
    await page.locator('datalist[id$="-name-options"] option[value="Alice"]').waitFor({ state: 'attached' });
    await form.getByLabel(/^name/).fill('Alice');
    await form.getByLabel(/^name/).fill('');
    await form.getByRole('button', { name: 'Get prompt' }).click();
    // Checked in the page, before any request: no doubled "MCP error -32602" from the server.
    await page.getByRole('alert').filter({ hasText: 'required: "name"' }).waitFor();
    await form.getByLabel(/^name/).fill('Alice');
    await form.getByRole('button', { name: 'Get prompt' }).click();
    await page.getByText('Please promote Alice to the head of the Engineering team.').waitFor();
    await page.screenshot({ path: join(SHOTS, 'prompt.png') });
    expect(errors).toEqual([]);
  }, 180_000);

  it('finder: search by keyword and type, drill down document → pages → elements, markdown rendered', async () => {
    await page.evaluate(`location.hash = '#/finder/vscode'`);
    await page.getByLabel('Keywords').fill('onboarding');
    await page.getByLabel('Type').fill('md');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 document', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Developer Guide' }).click();
    const doc = page.getByRole('region', { name: 'document dpe://docs/guide.md' });
    await doc.getByRole('button', { name: 'Install' }).click();
    // The page's markdown, rendered: a real list and code, not the source text.
    await doc.locator('.markdown li', { hasText: 'Clone the repository' }).waitFor();
    expect(await doc.locator('.markdown').innerText()).not.toContain('1. Clone');
    await doc.locator('.page-view li button').first().click();
    await doc.locator('pre', { hasText: '"element_id"' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'finder-document.png') });
    expect(errors).toEqual([]);
  }, 180_000);

  it('a call made by another MCP client shows up live in the logs and the pools', async () => {
    await page.evaluate(`location.hash = '#/logs'`);
    await page.getByTestId('log-counts').waitFor();
    const line = `from-the-agent-${Date.now()}`;
    await agent.callTool({ name: 'echo__stderr', arguments: { line } });
    await page.getByText(line).first().waitFor();

    await page.evaluate(`location.hash = '#/overview'`);
    const echoPool = page.locator('[data-pool="echo"]');
    await echoPool.waitFor();
    // A slow call by the agent: the pool page shows it in flight, then done, without a reload.
    const call = agent.callTool({ name: 'echo__slow', arguments: { steps: 200, ms: 25 } });
    await echoPool.locator('[data-inflight]', { hasText: '1' }).waitFor();
    await call;
    await echoPool.locator('[data-inflight]', { hasText: '0' }).waitFor();
  }, 180_000);

  it('a tools list change and a window change show up without reload', async () => {
    await page.evaluate(`location.hash = '#/caller/vscode/tools'`);
    await page.getByRole('searchbox', { name: 'search tools' }).fill('echo__extra');
    const n = Number(textOf(await agent.callTool({ name: 'echo__churn', arguments: {} })));
    await page.getByRole('button', { name: `echo__extra${n - 1}`, exact: true }).waitFor();

    await page.evaluate(`location.hash = '#/desktop/vscode'`);
    await page.getByText('editor of com.example.one').first().waitFor();
    await agent.callTool({ name: 'windows__add_window', arguments: { path: 'fresh', text: 'a fresh window', priority: 50 } });
    await page.locator('[data-window="window://com.example.one/fresh?priority=50"]').waitFor();
    await agent.callTool({ name: 'windows__set_window', arguments: { path: 'fresh', text: 'fresh window v2' } });
    await page.getByText('fresh window v2').waitFor();
    expect(errors).toEqual([]);
  }, 180_000);

  it('connect: Copy puts a ready-to-paste client config on the clipboard', async () => {
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base() });
    await page.evaluate(`location.hash = '#/connect/vscode'`);
    const section = page.getByRole('region', { name: 'VS Code (.vscode/mcp.json)' });
    await section.getByRole('button', { name: 'Copy' }).click();
    await section.getByRole('status').filter({ hasText: 'copied' }).waitFor();
    const pasted = JSON.parse(String(await page.evaluate('navigator.clipboard.readText()'))) as {
      servers: { mcpd: { type: string; command: string; args: string[] } };
    };
    expect(pasted.servers.mcpd).toEqual({
      type: 'stdio',
      command: process.execPath,
      args: [join(DIST, 'cmd/mcpdmcp/main.js'), 'vscode', '--config', world.configDir, '--socket', world.socket],
    });
    expect(errors).toEqual([]);
  }, 180_000);

  it('keyboard alone reaches every action on every page', async () => {
    for (const hash of PAGE_HASHES) {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await page.locator('main h1').waitFor();
      await page.locator('main').getByText('loading…').first().waitFor({ state: 'detached' });
      const all = await markActions(page);
      expect(all, `${hash} has actions`).toBeGreaterThan(3);
      await page.evaluate(`document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)`);
      const reached = new Set<string>();
      // Up to twice round: Chrome starts Tab from where focus last was (blur keeps that point), and a live
      // page (the log) adds rows meanwhile, so the bound is re-read from the page on every press: two cycles
      // of what is focusable now.
      for (let i = 0, bound = 2 * all + 10; reached.size < all && i < bound; i++) {
        await page.keyboard.press('Tab');
        const [id, focusable] = (await page.evaluate(
          `[document.activeElement && document.activeElement.getAttribute('data-kbd'), document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]').length]`,
        )) as [string | null, number];
        if (typeof id === 'string') reached.add(id);
        bound = Math.max(bound, 2 * focusable + 10);
      }
      const missing = await page.evaluate(
        `[...document.querySelectorAll('[data-kbd]')].filter((e) => !${JSON.stringify([...reached])}.includes(e.getAttribute('data-kbd'))).map((e) => e.outerHTML.slice(0, 80))`,
      );
      expect(missing, `not reachable by Tab on ${hash}`).toEqual([]);
    }
    // Enter activates: open a tool's details by keyboard.
    await page.evaluate(`location.hash = '#/caller/vscode/tools'`);
    await page.getByRole('searchbox', { name: 'search tools' }).fill('get-sum');
    await page.getByRole('button', { name: 'everything__get-sum', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'try everything__get-sum' }).waitFor();
  }, 180_000);

  it('a socket that connects before the page runs its first effects still shows the page online', async () => {
    // The race CI once lost: the socket connected between the first render and the effect that listens for
    // state changes, and "connecting to the core…" stayed on a working page. Here it is forced: the page's
    // after-paint work (animation frames and short timers) is held until the socket has joined /app.
    const held = await ctx.newPage();
    // A script for the page (its own window, not this process's): animation frames and timers under 1 s are
    // queued while `holding`, and run in order by `__release()`.
    await held.addInitScript(`{
      const queue = [];
      let holding = true;
      const raf = window.requestAnimationFrame.bind(window);
      const timeout = window.setTimeout.bind(window);
      window.requestAnimationFrame = (cb) => (holding ? (queue.push(() => raf(cb)), 0) : raf(cb));
      window.setTimeout = (fn, ms, ...rest) =>
        holding && ms > 0 && ms < 1000 ? (queue.push(() => timeout(fn, ms, ...rest)), 0) : timeout(fn, ms, ...rest);
      window.__release = () => {
        holding = false;
        for (const go of queue.splice(0)) go();
      };
    }`);
    const joined = new Promise<void>((resolve) =>
      held.on('websocket', (ws) =>
        ws.on('framereceived', (f) => typeof f.payload === 'string' && f.payload.startsWith('40/app') && resolve()),
      ),
    );
    await held.goto(`${base()}/?token=${record().token}#/overview`);
    await joined;
    await held.evaluate('window.__release()');
    await held.locator('[data-pool="echo"]').waitFor();
    expect(await held.locator('[data-conn]').count()).toBe(0);
    await held.close();
  }, 180_000);

  it('operator actions work from the overview; store problems show with file:line, inline in Config', async () => {
    await page.evaluate(`location.hash = '#/overview'`);
    const echoPool = page.locator('[data-pool="echo"]');
    const pidCell = echoPool.locator('tbody tr td:nth-child(3)');
    const before = await pidCell.first().innerText();
    // Pools by server name, not by hash.
    const names = (await page.evaluate(`[...document.querySelectorAll('[data-pool]')].map((e) => e.dataset.pool)`)) as string[];
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    await echoPool.getByRole('button', { name: 'Restart' }).first().click();
    // Nothing happens before the operator confirms; the outcome shows at the pool's row.
    await echoPool.getByRole('group', { name: /^confirm restart echo-\d+$/ }).waitFor();
    expect(await pidCell.first().innerText()).toBe(before);
    await echoPool.getByRole('button', { name: 'Confirm' }).click();
    await echoPool
      .getByRole('status')
      .filter({ hasText: /^restart echo-\d+: done$/ })
      .waitFor();
    await echoPool.locator('tbody tr', { hasText: 'restart' }).waitFor(); // start cause of the new instance
    expect(await pidCell.first().innerText()).not.toBe(before);
    // The page's restart passed the core's door, as `mcpdctl restart` does: the audit log records it.
    const restarts = () =>
      readFileSync(join(world.configDir, '.mcpd-state', 'audit.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"method":"mcpd/servers/restart"'));
    await waitFor('the restart in the audit log', () => restarts().length === 1);
    expect(JSON.parse(must(restarts()[0], 'an entry'))).toMatchObject({ caller: 'operator', face: 'dashboard', outcome: 'ok' });

    await echoPool.getByRole('button', { name: 'Stop pool' }).click();
    await echoPool.getByRole('button', { name: 'Confirm' }).click();
    await echoPool.getByRole('status').filter({ hasText: 'stop echo: done' }).waitFor();
    await echoPool.getByText('no instances (scaled to zero)').waitFor();
    expect(await echoPool.getByRole('button', { name: 'Stop pool' }).count()).toBe(0); // nothing left to stop

    const good = readFileSync(join(world.configDir, 'profiles/default.yaml'), 'utf8');
    world.write('profiles/default.yaml', `${good}  - name: broken\n    transport: carrier-pigeon\n`);
    const problems = page.getByRole('region', { name: 'store problems' });
    await problems
      .getByText(/profiles\/default\.yaml:\d+/)
      .first()
      .waitFor();
    await page.screenshot({ path: join(SHOTS, 'overview-problems.png') });
    await page.evaluate(`location.hash = '#/config'`);
    await page
      .getByRole('note')
      .filter({ hasText: /transport/ })
      .first()
      .waitFor();
    await page.screenshot({ path: join(SHOTS, 'config-problems.png'), fullPage: true });
    world.write('profiles/default.yaml', good);
    await page.evaluate(`location.hash = '#/overview'`);
    await problems.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Reload store' }).click();
    await page.getByRole('status').filter({ hasText: 'reload store: done' }).waitFor();
    expect(errors).toEqual([]);
  }, 180_000);

  it('a graceful stop is shown, and the page reconnects to the next core by itself', async () => {
    await page.evaluate(`location.hash = '#/overview'`);
    await page.locator('[data-pool="echo"]').waitFor();
    const oldToken = record().token;
    const oldLogin = (await page.evaluate(`sessionStorage.getItem('mcpd-session')`)) as string;
    const core = must(world.cores[0], 'the core');
    const exited = new Promise((r) => core.once('exit', r));
    core.kill('SIGTERM');
    await page.locator('[data-conn="stopping"]').waitFor();
    await page.screenshot({ path: join(SHOTS, 'stopping.png') });
    await exited;
    // Gone: the banner says so (not "stopping" forever), and no action can be started meanwhile.
    await page.locator('[data-conn="stopped"]').waitFor();
    expect(await page.locator('main button:not([disabled])', { hasText: /Restart|Stop pool/ }).count()).toBe(0);
    await world.startCore();
    expect(record().token).not.toBe(oldToken); // rotated on restart
    await page.locator('[data-conn]').waitFor({ state: 'detached', timeout: 30_000 });
    await page.locator('[data-pool="echo"]').waitFor();
    // The page renewed its login with the new core (a new value, never a token, no cookie).
    const login = (await page.evaluate(`sessionStorage.getItem('mcpd-session')`)) as string;
    expect(login).toMatch(/^[\w-]{43}$/);
    expect(login).not.toBe(oldLogin);
    expect(await ctx.cookies(base())).toEqual([]);
  }, 180_000);

  it('after a crash there is no handoff: the page says to open it again, and a fresh link works', async () => {
    await page.evaluate(`location.hash = '#/overview'`);
    await page.locator('[data-pool="echo"]').waitFor();
    const core = world.cores.at(-1);
    const exited = new Promise((r) => core?.once('exit', r));
    core?.kill('SIGKILL');
    await exited;
    await page.locator('[data-conn="reconnecting"]').waitFor();
    await world.startCore();
    await page.locator('[data-conn="locked-out"]').waitFor({ timeout: 30_000 });
    await page.getByText('open it again with "mcpd open"').waitFor();
    await page.goto(`${base()}/?token=${record().token}#/overview`);
    await page.locator('[data-pool="echo"]').waitFor();
    expect(await page.locator('[data-conn]').count()).toBe(0);
  }, 180_000);

  it('mcpd open --print-url prints a single-use login link (never the token) to the caller page', async () => {
    const { stdout } = await run(process.execPath, [MCPD, 'open', '--caller', 'vscode', '--print-url', '--socket', world.socket], {
      env: world.env(),
    });
    expect(stdout.trim()).toMatch(new RegExp(`^${base()}/\\?login=[\\w-]+\\.\\d+\\.[\\w-]+#/caller/vscode/tools$`));
    expect(stdout).not.toContain(record().token);
    const bad = await run(process.execPath, [MCPD, 'open', '--caller', 'no/such', '--print-url', '--socket', world.socket], {
      env: world.env(),
    }).catch((e: { stderr: string; code: number }) => e);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/caller "no\/such" is not a valid caller name/) });
  }, 180_000);

  it('mcpd url-handler install registers mcpd:// with xdg; the link starts a core and opens the caller page', async () => {
    const home = join(world.dir, 'home');
    const xdg = { HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_DIRS: join(home, 'sys') };
    mkdirSync(xdg.XDG_CONFIG_HOME, { recursive: true });
    // A second store and socket: no core runs there yet.
    const store = join(world.dir, 'store2');
    mkdirSync(join(store, 'profiles'), { recursive: true });
    writeFileSync(join(store, 'profiles/default.yaml'), 'servers:\n' + echoServer('echo'));
    writeFileSync(join(store, 'runtime.yaml'), 'metricsAddress: 127.0.0.1:0\n');
    const socket = join(world.dir, 'run2', 'control.sock');
    const env = world.env({ ...xdg, MCPD_SOCKET: socket });
    await run(process.execPath, [MCPD, 'url-handler', 'install', '--config', store, '--socket', socket], { env });
    const { stdout: handler } = await run('xdg-mime', ['query', 'default', 'x-scheme-handler/mcpd'], { env });
    expect(handler.trim()).toBe('mcpd-url-handler.desktop');
    const desktop = readFileSync(join(xdg.XDG_DATA_HOME, 'applications/mcpd-url-handler.desktop'), 'utf8');
    expect(desktop).toMatch(/^MimeType=x-scheme-handler\/mcpd;$/m);
    const exec = /^Exec=(.*)$/m.exec(desktop)?.[1] ?? '';
    expect(exec).toContain('--link %u');

    // Run the Exec line as the desktop would for a clicked link, with $BROWSER recording what it opens.
    const opened = join(world.dir, 'opened.txt');
    const browserScript = join(world.dir, 'browser.sh');
    writeFileSync(browserScript, `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`, { mode: 0o755 });
    const [program = '', ...args] = desktopExec(exec, 'mcpd://start?caller=vscode');
    await run(program, args, { env: { ...env, BROWSER: browserScript } });
    await waitFor('the browser to be asked to open the page', () => readOr(opened) !== '');
    // The browser is handed a private page (never the login link: its argv is public) that leads on to the link.
    const page2 = new URL(readOr(opened));
    expect(page2.protocol).toBe('file:');
    const html = readFileSync(fileURLToPath(page2), 'utf8');
    const url = new URL((/url=([^"]+)"/.exec(html)?.[1] ?? '').replaceAll('&amp;', '&'));
    expect(url.hash).toBe('#/caller/vscode/tools');
    const rec = JSON.parse(readFileSync(join(world.dir, 'run2', 'dashboard.json'), 'utf8')) as Record_;
    expect(url.searchParams.get('login')).toBeTruthy();
    expect(url.toString()).not.toContain(rec.token);
    // It really is a core with a dashboard: the browser lands on the caller page.
    const p2 = await ctx.newPage();
    await p2.goto(page2.href);
    await p2
      .getByRole('button', { name: 'echo__echo', exact: true })
      .waitFor()
      .catch(async (e: Error) => {
        throw new Error(`${e.message}\npage: ${await p2.locator('body').innerText()}`);
      });
    await p2.close();
    await expect(run(program, desktopExec(exec, 'https://evil.example/').slice(1), { env })).rejects.toMatchObject({
      stderr: expect.stringMatching(/not an mcpd link; expected mcpd:\/\/start\?caller=NAME/),
    });
  }, 180_000);
});

/** Whether the element's top edge is inside the viewport. */
async function inView(page: Page, el: ReturnType<Page['locator']> | ReturnType<Page['getByRole']>): Promise<boolean> {
  const top = await el.evaluate((e) => e.getBoundingClientRect().top);
  const height = (await page.evaluate('innerHeight')) as number;
  return top >= 0 && top < height;
}

function statMode(p: string): number {
  return statSync(p).mode & 0o777;
}

function readOr(p: string): string {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}

function textOf(r: unknown): string {
  return (r as { content: { text: string }[] }).content.map((c) => c.text).join('');
}

/** The Exec line's arguments (quoted per the Desktop Entry spec) with %u replaced by the link. */
function desktopExec(exec: string, link: string): string[] {
  const out: string[] = [];
  for (const [, quoted, bare = ''] of exec.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    const arg = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : bare;
    out.push(arg === '%u' ? link : arg);
  }
  return out;
}

/** GET to our listener with exactly these headers (fetch does not let a test set Host). */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number }> {
  return new Promise((res, rej) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (r) => {
      r.resume();
      res({ status: r.statusCode ?? 0 });
    });
    req.on('error', rej);
    req.end();
  });
}

async function markActions(page: Page): Promise<number> {
  return (await page.evaluate(`(() => {
    const els = [...document.querySelectorAll('a[href], button:not([disabled]), input, select, textarea, [tabindex="0"]')]
      .filter((e) => e.offsetParent !== null);
    els.forEach((e, i) => e.setAttribute('data-kbd', String(i)));
    return els.length;
  })()`)) as number;
}

/** Connects to namespace /app with these headers: "connected", or the refusal's message. */
function socketOutcome(base: string, headers: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const s = ioClient(`${base}/app`, { transports: ['websocket'], reconnection: false, extraHeaders: headers, forceNew: true });
    const done = (v: string) => {
      s.close();
      resolve(v);
    };
    s.on('connect', () => done('connected'));
    s.on('connect_error', (e) => done(e.message));
  });
}
