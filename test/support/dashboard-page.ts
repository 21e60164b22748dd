import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { collectErrors, launchChromium } from './browser.js';
import type { TestWorld } from './core-process.js';
import { REPO } from './paths.js';

/** The dashboard's access token, as the world's core wrote it to `dashboard.json` beside its socket. */
export function dashboardToken(world: TestWorld): string {
  return (JSON.parse(readFileSync(join(world.dir, 'run', 'dashboard.json'), 'utf8')) as { token: string }).token;
}

export interface DashboardPage {
  browser: Browser;
  page: Page;
  /** Console errors and uncaught exceptions of the page so far (test/support/browser.ts). */
  errors: string[];
  /** `http://127.0.0.1:PORT`, the dashboard's origin. */
  base: string;
}

/**
 * Debian's chromium (tagged with the world's env, so its clean-up proves every browser process gone) on the
 * dashboard of the world's running core, logged in with the token link and showing `hash` (`#/audit`).
 * The caller closes `browser`.
 */
export async function openDashboard(
  world: TestWorld,
  port: number,
  hash: string,
  viewport = { width: 1366, height: 800 },
): Promise<DashboardPage> {
  const browser = await launchChromium(world.env());
  const page = await (await browser.newContext({ viewport })).newPage();
  const errors = collectErrors(page);
  const base = `http://127.0.0.1:${port}`;
  await page.goto(`${base}/?token=${dashboardToken(world)}${hash}`);
  return { browser, page, errors, base };
}

/**
 * axe-core's findings in the page, each `rule: targets`: under `selector` (default the whole document), only
 * the rules named (default all of them), of the impacts named (default any). axe's source is injected over the DevTools protocol, so the page's
 * CSP stays on.
 */
export async function axeFindings(page: Page, opts: { selector?: string; rules?: string[]; impacts?: string[] } = {}): Promise<string[]> {
  if ((await page.evaluate('typeof axe')) !== 'object') {
    await page.evaluate(readFileSync(join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8'));
  }
  const context = opts.selector ? `document.querySelector(${JSON.stringify(opts.selector)})` : 'document';
  const options = opts.rules ? JSON.stringify({ runOnly: opts.rules }) : '{}';
  const impacts = JSON.stringify(opts.impacts ?? null);
  return (await page.evaluate(
    `axe.run(${context}, ${options}).then((r) => r.violations.filter((v) => ${impacts} === null || ${impacts}.includes(v.impact)).map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  )) as string[];
}

/**
 * Where a test writes its screenshots: `docs/dashboard/`, which the docs show, only on request
 * (MCPD_UPDATE_SCREENSHOTS=1), so a plain run leaves the working tree as it was; else a temporary
 * directory that `remove()` deletes.
 */
export function screenshotDir(): { dir: string; remove(): void } {
  if (process.env.MCPD_UPDATE_SCREENSHOTS === '1') return { dir: resolve(REPO, 'docs/dashboard'), remove: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'mcpd-dashboard-shots-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
