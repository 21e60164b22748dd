import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { openDashboard } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { everythingServer, profile } from '../support/profiles.js';

// docs/audit.md: the dashboard's Audit page shows the audit log live, as the core writes it.
describe('the dashboard Audit page', () => {
  let world: TestWorld;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    const port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('ev', { idleSeconds: 300 })),
      'callers.yaml': 'callers: { alice: default, bob: default }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
    ({ browser, page, errors } = await openDashboard(world, port, '#/audit'));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
  });

  const rows = () => page.getByRole('table', { name: 'audit log' }).locator('tbody tr');

  it('shows a call made through the MCP gateway as soon as it is written, and filters by caller', async () => {
    await page.getByText('no audit entries yet').waitFor();
    const alice = await world.gateway('alice');
    await alice.callTool({ name: 'ev__echo', arguments: { message: 'hello' } });
    const row = rows().filter({ hasText: 'ev__echo' });
    await row.waitFor();
    expect((await row.innerText()).split('\t').map((c) => c.trim())).toEqual([
      '1',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      'alice',
      expect.stringMatching(/^session/),
      'tools/call',
      'ev__echo',
      'ok',
      expect.stringMatching(/^\d+$/),
    ]);
    const bob = await world.gateway('bob');
    await bob.callTool({ name: 'ev__get-sum', arguments: { a: 1, b: 2 } });
    await rows().filter({ hasText: 'ev__get-sum' }).waitFor();
    await page.getByRole('combobox', { name: 'audit caller' }).selectOption('bob');
    // The page re-renders after the select: the old table (both rows) is still there until alice's row leaves.
    await rows().filter({ hasText: 'ev__echo' }).waitFor({ state: 'detached' });
    await rows().filter({ hasText: 'ev__get-sum' }).waitFor();
    expect(await rows().count()).toBe(1);
    expect(errors).toEqual([]);
  }, 60_000);
});
