import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { openDashboard } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

// docs/app.md: a tools/call result whose structuredContent breaks the tool's outputSchema is shown as the error
// a stock MCP client makes of it (-32602), first line first and the details below — not as a success.
describe('try-it: a result that breaks its outputSchema', () => {
  let world: TestWorld;
  let port: number;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': profile(server('out', [process.execPath, join(FIXTURES, 'servers/bad-output.mjs')], { idleSeconds: 300 })),
      'callers.yaml': 'callers: { vscode: default }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
    ({ browser, page, errors } = await openDashboard(world, port, '#/caller/vscode/tools'));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
  });

  const run = async (tool: string) => {
    await page.getByRole('searchbox', { name: 'search tools' }).fill(tool);
    const form = page.getByRole('form', { name: `try ${tool}` });
    if (!(await form.isVisible())) await page.getByRole('button', { name: tool, exact: true }).click();
    await form.getByRole('button', { name: 'Run' }).click();
  };

  it('shows the breach as an error: the first line says it, the details name the field', async () => {
    await run('out__shape');
    const alert = page.getByRole('alert').filter({ hasText: 'Structured content does not match' });
    await alert.waitFor();
    const first = (await alert.evaluate((el) => el.firstChild?.textContent ?? '')).trim();
    expect(first).toBe("MCP error -32602: Structured content does not match the tool's output schema");
    await alert.getByText('details').click();
    expect(await alert.locator('pre').innerText()).toMatch(/\/n must be number[\s\S]*"n": "not a number"/);
    expect(await page.getByTestId('result').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('a result that fits its schema is shown as a result', async () => {
    await run('out__fine');
    await page.getByTestId('result').getByText('structured content').waitFor();
    expect(await page.getByTestId('result').innerText()).toContain('"n": 7');
    expect(errors).toEqual([]);
  }, 60_000);
});
