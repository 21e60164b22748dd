import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctColours } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { axeFindings, openDashboard, screenshotDir } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { startWorldHttpGateway, stopProc, type HttpGatewayProc } from '../support/http-gateway.js';
import { runCtl } from '../support/oauth-sign-in.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';
import { rpc, untilTask, type Json } from '../support/tasks-2026.js';

/**
 * docs/app.md, Tasks: the tasks the core hosts, as the dashboard shows them — created by a real 2026-07-28
 * client through `mcpdmcp --http` against the conformance fixture, seen live in chromium, opened, and
 * cancelled from the page; `mcpdctl tasks CALLER` then shows the cancellation.
 */
describe('the dashboard Tasks page', () => {
  let world: TestWorld;
  let alice: HttpGatewayProc;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const shots = screenshotDir();
  /** The task the first test starts and the second cancels. */
  let running = '';

  /** Starts a task as alice's client; the answer is its CreateTaskResult. */
  const startTask = async (name: string, args: Json): Promise<string> => {
    const created = await rpc(alice, 'tools/call', { name, arguments: args });
    expect(created.result, JSON.stringify(created.error)).toMatchObject({ resultType: 'task' });
    return created.result?.taskId as string;
  };
  const table = () => page.getByRole('table', { name: 'tasks' });
  /** The task's row: its first cell holds the id's first 8 characters, the whole id as its title. */
  const row = (id: string) =>
    table()
      .locator('tbody tr')
      .filter({ has: page.locator(`button[title="${id}"]`) });
  /** The button that opens the task's details: its short id. */
  const opener = (id: string) => row(id).getByRole('button', { name: id.slice(0, 8), exact: true });
  /** Polls tasks/get, as alice's client would, until the task is in `status`. */
  const until = (id: string, status: string) => untilTask(alice, id, status, (t) => t.status === status, 30_000);
  const cells = async (id: string) => (await row(id).locator('td').allInnerTexts()).map((c) => c.trim());

  beforeAll(async () => {
    const port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': `namespace: { mode: never }\n${profile(server('cf', [process.execPath, `${FIXTURES}/servers/conformance.mjs`], { idleSeconds: 300 }))}`,
      'callers.yaml': 'callers: { alice: default, bob: default }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
    alice = await startWorldHttpGateway(world, 'alice');
    ({ browser, page, errors } = await openDashboard(world, port, '#/tasks'));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    shots.remove();
    if (alice) await stopProc(alice.proc);
    await world?.cleanup();
  });

  it('says there are none yet, then shows a task as it starts, with its caller, server and tool', async () => {
    await page.getByText(/^no tasks: a task starts when/).waitFor();
    const id = (running = await startTask('slow_compute', { seconds: 600, label: 'page' }));
    await row(id).waitFor();
    expect(await cells(id)).toEqual([
      id.slice(0, 8),
      'alice',
      'cf / slow_compute',
      'working',
      '',
      expect.stringMatching(/\d/),
      expect.stringMatching(/\d/),
      '1 h',
      'Cancel',
    ]);
    expect(errors).toEqual([]);
  }, 60_000);

  it('cancels a running task from the page: it settles cancelled, for mcpdctl tasks CALLER too', async () => {
    const id = running;
    await row(id)
      .getByRole('button', { name: `Cancel task ${id.slice(0, 8)}` })
      .click();
    await row(id)
      .locator('td', { hasText: /^cancelled$/ })
      .waitFor();
    const after = await cells(id);
    expect([after[3], after[4], after[8]]).toEqual(['cancelled', 'cancelled by its caller (tasks/cancel)', '']);

    const listed = await runCtl(world, ['tasks', 'alice', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Json[]).find((t) => t.taskId === id)).toMatchObject({
      status: 'cancelled',
      tool: 'slow_compute',
      statusMessage: 'cancelled by its caller (tasks/cancel)',
    });
    expect((await rpc(alice, 'tasks/get', { taskId: id })).result).toMatchObject({ status: 'cancelled' });
    expect(errors).toEqual([]);
  }, 60_000);

  it('opens a task in full: a result, an error, the input requests a task waits on', async () => {
    const done = await startTask('slow_compute', { seconds: 0, label: 'quick' });
    await until(done, 'completed');
    const broken = await startTask('protocol_error_job', {});
    await until(broken, 'failed');
    const asking = await startTask('confirm_delete', { filename: 'f.txt' });
    await until(asking, 'input_required');

    const details = page.getByRole('region', { name: 'task details' });
    await opener(done).click();
    await details.getByTestId('result').getByText('computed quick after 0s').waitFor();
    const png = await page.screenshot({ path: join(shots.dir, 'tasks.png') });
    expect(await distinctColours(browser, png), 'the screenshot is blank').toBeGreaterThan(8);

    // The page's list follows the core's by a push: wait for it to say failed.
    await row(broken)
      .locator('td', { hasText: /^failed$/ })
      .waitFor();
    await opener(broken).click();
    await details.getByRole('alert').getByText('error -32603: protocol_error_job fails on purpose').waitFor();

    await row(asking).locator('td', { hasText: 'input required (1 waiting)' }).waitFor();
    await opener(asking).click();
    await details.getByText('elicitation/create').waitFor();
    expect(await details.locator('pre').innerText()).toContain('Delete f.txt?');
    expect(await axeFindings(page, { selector: 'main' })).toEqual([]);

    await details.getByRole('button', { name: 'Close' }).click();
    await details.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  }, 90_000);

  it("answers a task's elicitation from the page, as its caller: the form checks the schema, the task goes on and completes", async () => {
    const asking = await startTask('confirm_delete', { filename: 'g.txt' });
    await row(asking).locator('td', { hasText: 'input required (1 waiting)' }).waitFor();
    await opener(asking).click();
    const details = page.getByRole('region', { name: 'task details' });
    const form = details.getByRole('form', { name: 'answer: Delete g.txt?' });
    await form.getByRole('button', { name: 'Accept' }).click();
    // The schema requires the field: the page says so and sends nothing.
    await form.getByRole('alert').waitFor();
    expect((await rpc(alice, 'tasks/get', { taskId: asking })).result).toMatchObject({ status: 'input_required' });

    await form.getByLabel('confirm').fill('yes');
    await form.getByRole('button', { name: 'Accept' }).click();
    await row(asking)
      .locator('td', { hasText: /^completed$/ })
      .waitFor();
    await details.getByTestId('result').getByText('deleted g.txt').waitFor();
    await form.waitFor({ state: 'detached' });
    expect((await rpc(alice, 'tasks/get', { taskId: asking })).result).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'deleted g.txt' }] },
    });
    await details.getByRole('button', { name: 'Close' }).click();
    await details.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  }, 90_000);

  it("filters by caller: bob's view is empty, all callers shows alice's again; the page stays accessible on a phone", async () => {
    const picker = page.getByRole('combobox', { name: 'tasks caller' });
    await picker.selectOption('bob');
    await page.getByText(/^no tasks of bob:/).waitFor();
    await picker.selectOption('alice');
    await table().waitFor();
    await picker.selectOption('');
    // Polled: until the page re-renders, the table on screen may still be alice's view, or none yet.
    await expect
      .poll(async () => new Set((await table().locator('tbody tr td:nth-child(2)').allInnerTexts()).map((c) => c.trim())))
      .toEqual(new Set(['alice']));

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth - innerWidth')).toBeLessThanOrEqual(0);
    expect(await axeFindings(page)).toEqual([]);
    expect(await page.locator('h1').innerText()).toBe('Tasks');
    expect(errors).toEqual([]);
  }, 60_000);
});
