/**
 * The dashboard in chromium at a laptop's 1366×800 and a phone's 390×844: a resource template opens a form for
 * its variables at its own row; each pool's actions stay inside the pool's card under a header; the Restart
 * confirmation says what happens to calls in flight; Connect offers Claude Code, Gemini CLI and Codex with their
 * name budgets and quotes paths (the store's path has a space and a quote); a YAML syntax error reads without an empty field prefix; a result that breaks its
 * outputSchema is an error; one <h1> per page and no critical or serious axe-core finding. The 401 page and
 * `mcpd --help` speak of login links. Screenshots go to this test's temp dir.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctColours } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { axeFindings, openDashboard } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { FIXTURES, MCPD } from '../support/paths.js';
import { everythingServer, profile, server } from '../support/profiles.js';

const run = promisify(execFile);
const SIZES = [
  [1366, 800, 'laptop'],
  [390, 844, 'phone'],
] as const;
const TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';
/** The store's folder: a space and a quote, which a shell line must quote. */
const STORE = "my store's";

describe('the dashboard at 1366×800 and 390×844', () => {
  const shots = mkdtempSync(join(tmpdir(), 'mcpd-dashboard-two-sizes-'));
  let world: TestWorld;
  let port: number;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const base = () => `http://127.0.0.1:${port}`;
  const go = async (hash: string) => {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await page.locator('main h1').waitFor();
    await page.locator('main').getByText('loading…').first().waitFor({ state: 'detached' });
  };
  const shoot = async (name: string) => {
    const png = await page.screenshot({ path: join(shots, `${name}.png`) });
    expect(await distinctColours(browser, png), `${name} screenshot is blank`).toBeGreaterThan(8);
  };

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld(
      {
        'profiles/default.yaml': profile(
          everythingServer('everything', { strategy: 'singleton', idleSeconds: 300 }),
          server('out', [process.execPath, join(FIXTURES, 'servers/bad-output.mjs')], { strategy: 'singleton', idleSeconds: 300 }),
        ),
        'callers.yaml': 'callers: { vscode: default }\n',
        'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
      },
      { storeName: STORE },
    );
    await world.startCore();
    ({ browser, page, errors } = await openDashboard(world, port, '#/overview'));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
    rmSync(shots, { recursive: true, force: true });
  });

  for (const [width, height, tag] of SIZES) {
    describe(`at ${width}×${height}`, () => {
      beforeAll(async () => page.setViewportSize({ width, height }));

      it('a resource template opens a form for its variables at its own row, and reads the expanded URI there', async () => {
        await go('#/caller/vscode/resources');
        const row = page.locator('li.item', { has: page.locator('code', { hasText: TEMPLATE }) });
        await row.getByRole('button').first().click();
        const form = row.getByRole('form', { name: `read template ${TEMPLATE}` });
        await form.waitFor();
        // Near the click, not the "Read a URI" box at the top, which stays as it was.
        const [clicked, opened] = await Promise.all([row.getByRole('button').first().boundingBox(), form.boundingBox()]);
        expect(opened!.y - clicked!.y).toBeLessThan(120);
        expect(await page.getByLabel('Read a URI').inputValue()).toBe('');
        await form.getByLabel('resourceId').fill('7');
        await form.getByRole('button', { name: 'Read' }).click();
        const detail = row.getByRole('region', { name: 'resource demo://resource/dynamic/text/7' });
        await detail.getByText('Resource 7: This is a plaintext resource').waitFor();
        await shoot(`template-form-${tag}`);
        expect(errors).toEqual([]);
      }, 60_000);

      it("pool actions stay inside the pool's card, under a header; Restart asks and says what happens to calls in flight", async () => {
        await go('#/overview');
        const pool = page.locator('[data-pool="everything"]');
        const restart = pool.getByRole('button', { name: 'Restart' }).first();
        await restart.waitFor();
        const [card, button] = await Promise.all([pool.boundingBox(), restart.boundingBox()]);
        expect(button!.x).toBeGreaterThanOrEqual(card!.x);
        expect(button!.x + button!.width).toBeLessThanOrEqual(card!.x + card!.width);
        expect(button!.y + button!.height).toBeLessThanOrEqual(card!.y + card!.height);
        // Every column has a header, the action column too, for a screen reader at either size.
        const table = pool.getByRole('table', { name: 'instances of everything' });
        expect(await table.getByRole('columnheader').allInnerTexts()).toEqual([
          'instance',
          'state',
          'pid',
          'start cause',
          'in flight',
          'action',
        ]);
        expect(await table.getByRole('row').nth(1).getByRole('cell').count()).toBe(6);
        await restart.click();
        const ask = pool.getByRole('group', { name: /^confirm restart / });
        expect(await ask.innerText()).toMatch(
          /Calls in flight get up to \d+ s .*to finish while it drains; any still running then fails with "stopped during the call"/,
        );
        await shoot(`pool-confirm-${tag}`);
        await ask.getByRole('button', { name: 'Cancel' }).click();
        expect(errors).toEqual([]);
      }, 60_000);

      it('Connect offers Claude Code, Gemini CLI and Codex with their name budgets, and quotes paths in shell lines', async () => {
        await go('#/connect/vscode');
        const section = (name: RegExp) => page.getByRole('region', { name });
        expect(await section(/^Claude Code/).innerText()).toMatch(/mcp__mcpd__<tool>, at most 64 characters/);
        expect(await section(/^Gemini CLI/).innerText()).toMatch(/mcp_mcpd_<tool>, at most 63 characters/);
        expect(await section(/^Codex/).innerText()).toMatch(/\[mcp_servers\.mcpd\]/);
        expect(await section(/^Codex/).innerText()).toContain(JSON.stringify(world.configDir)); // a TOML string, quote and all
        // The store's path has a space and a quote: the shell line single-quotes it, the quote closed and escaped.
        const line =
          (
            await section(/^Streamable HTTP/)
              .locator('pre')
              .innerText()
          ).split('\n')[0] ?? '';
        expect(world.configDir).toBe(`${world.dir}/${STORE}`);
        expect(line).toContain(`--config '${world.dir}/my store'\\''s' --socket ${world.socket}`);
        // And a POSIX shell reads it back as the path itself, one word.
        const { stdout } = await run('/bin/sh', ['-c', `printf '%s\\n' ${line}`]);
        const words = stdout.split('\n');
        expect(words[words.indexOf('--config') + 1]).toBe(world.configDir);
        await shoot(`connect-${tag}`);
      }, 60_000);

      it('a result that breaks its outputSchema is an error, its first line first', async () => {
        await go('#/caller/vscode/tools');
        await page.getByRole('searchbox', { name: 'search tools' }).fill('out__shape');
        const form = page.getByRole('form', { name: 'try out__shape' });
        if (!(await form.isVisible())) await page.getByRole('button', { name: 'out__shape', exact: true }).click();
        await form.getByRole('button', { name: 'Run' }).click();
        const alert = page.getByRole('alert').filter({ hasText: 'Structured content does not match' });
        await alert.waitFor();
        expect((await alert.evaluate((el) => el.firstChild?.textContent ?? '')).trim()).toBe(
          "MCP error -32602: Structured content does not match the tool's output schema",
        );
        await shoot(`output-schema-${tag}`);
        expect(errors).toEqual([]);
      }, 60_000);

      it('every page has one <h1> and no critical or serious axe-core finding', async () => {
        const problems: string[] = [];
        for (const hash of [
          '#/overview',
          '#/caller/vscode/tools',
          '#/caller/vscode/resources',
          '#/connect/vscode',
          '#/config',
          '#/logs',
          '#/tasks',
        ]) {
          await go(hash);
          const h1s = await page.locator('h1').count();
          if (h1s !== 1) problems.push(`${hash}: ${h1s} <h1> elements`);
          const found = await axeFindings(page, { impacts: ['critical', 'serious'] });
          problems.push(...found.map((f) => `${hash}: ${f}`));
          await shoot(`${hash.replace(/[#/]+/g, '-').replace(/^-|-$/g, '')}-${tag}`);
        }
        expect(problems).toEqual([]);
      }, 180_000);
    });
  }

  it('a YAML syntax error reads with its line and without an empty field prefix', async () => {
    world.write('profiles/broken.yaml', 'servers:\n  - name: [unclosed\n');
    try {
      await go('#/config');
      const note = page.getByRole('note').filter({ hasText: /▲/ }).first();
      await note.waitFor();
      const text = await note.innerText();
      expect(text).not.toMatch(/▲\s*:/);
      expect(text).toMatch(/▲ \S/);
    } finally {
      rmSync(join(world.configDir, 'profiles/broken.yaml'));
    }
  }, 60_000);

  it('the 401 page and mcpd --help speak of login links, not tokens', async () => {
    for (const path of ['/?token=stale', '/?login=bogus']) {
      const res = await fetch(`${base()}${path}`);
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).toMatch(/run "mcpd open" for a fresh login link/);
      expect(text).not.toMatch(/token/i);
    }
    const { stdout } = await run(process.execPath, [MCPD, '--help']);
    const open = stdout.slice(stdout.indexOf('mcpd open'), stdout.indexOf('mcpd url-handler'));
    expect(open).toMatch(/single-use login\s+link/);
    expect(open).not.toMatch(/token/i);
  });
});
