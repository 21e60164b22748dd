import type { Browser, BrowserContext, Page } from 'playwright-core';
import { io as ioClient, type Socket } from 'socket.io-client';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InputRequest, Reply } from '../../internal/contract/dashboard/dashboard-events.js';
import { collectErrors, launchChromium } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { axeFindings, dashboardToken } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

// A try-it call whose server needs input, answered in the dashboard (chromium against a real core): the
// 2025-11-25 fixture asks with elicitation/create and sampling/createMessage in the middle of the call,
// the 2026-07-28 one answers InputRequiredResult, which the core turns into the same requests. Both
// fixtures echo what they got, so the result shows what reached the server.

const SERVERS = [
  ['legacy', 'era2025.mjs', '2025-11-25'],
  ['modern', 'era2026.mjs', '2026-07-28'],
] as const;

describe('input requests answered in the dashboard try-it', () => {
  let world: TestWorld;
  let port: number;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  const token = () => dashboardToken(world);
  const base = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': profile(
        ...SERVERS.map(([name, file]) =>
          server(name, [process.execPath, `${FIXTURES}/servers/${file}`], { idleSeconds: 300, maxInstances: 1 }),
        ),
      ),
      'callers.yaml': 'callers: { vscode: default, other: default }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
    browser = await launchChromium(world.env());
    ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await ctx.newPage();
    errors = collectErrors(page);
    await page.goto(`${base()}/?token=${token()}#/caller/vscode/tools`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
  });

  /** Opens a tool's try-it and runs it; returns the form. */
  const runTool = async (p: Page, tool: string, fill: Record<string, string> = {}) => {
    await p.evaluate(`location.hash = '#/caller/vscode/tools'`);
    await p.getByRole('searchbox', { name: 'search tools' }).fill(tool);
    const form = p.getByRole('form', { name: `try ${tool}` });
    if (!(await form.isVisible())) await p.getByRole('button', { name: tool, exact: true }).click();
    for (const [label, v] of Object.entries(fill)) await form.getByLabel(new RegExp(`^${label}`)).fill(v);
    await form.getByRole('button', { name: 'Run' }).click();
  };
  const question = (p: Page, kind: 'input' | 'sampling') =>
    p.getByRole('region', { name: kind === 'input' ? /asks for input/ : /asks for a model reply/ });
  const result = async (p: Page, text: RegExp | string) => {
    await p.getByTestId('result').getByText(text).waitFor();
    return (await p.getByTestId('result').innerText()).trim();
  };

  describe.each(SERVERS)('a %s server (%s, %s)', (srv, _file, era) => {
    it(`elicitation (${era}): the form is built from requestedSchema, checked, and its values reach the server`, async () => {
      await runTool(page, `${srv}__form`);
      const q = question(page, 'input');
      await q.getByText('Tell us about you').waitFor();
      // Checked before it is sent: a too short name and a missing age are named, nothing goes out.
      await q.getByLabel(/^Name/).fill('A');
      await q.getByRole('button', { name: 'Accept' }).click();
      const problems = q.getByRole('alert');
      await problems.getByText('"Name" must have at least 2 characters').waitFor();
      await problems.getByText('"Age" is required').waitFor();
      await q.getByLabel(/^Name/).fill('Ada');
      await q.getByLabel(/^Age/).fill('36');
      await q.getByLabel(/^Member/).check();
      await q.getByLabel(/^Colour/).selectOption('green');
      await q.getByRole('button', { name: 'Accept' }).click();
      expect(await result(page, /form: accept/)).toContain('form: accept {"name":"Ada","age":36,"member":true,"color":"green"}');
      expect(await q.count()).toBe(0);
      expect(errors).toEqual([]);
    }, 120_000);

    it(`elicitation (${era}): decline and cancel reach the server as such`, async () => {
      for (const action of ['Decline', 'Cancel'] as const) {
        await runTool(page, `${srv}__form`);
        const q = question(page, 'input');
        await q.getByText('Tell us about you').waitFor();
        await q.getByRole('button', { name: action }).click();
        expect(await result(page, `form: ${action.toLowerCase()}`)).toBe(`form: ${action.toLowerCase()}`);
      }
      expect(errors).toEqual([]);
    }, 120_000);

    it(`sampling (${era}): the messages are shown and the reply is the server's model answer`, async () => {
      await runTool(page, `${srv}__summarize`, { topic: 'the tides' });
      const q = question(page, 'sampling');
      await q.getByText('Summarize the tides').waitFor();
      await q.getByLabel(/^Reply/).fill('water goes up and down');
      await q.getByRole('button', { name: 'Accept' }).click();
      expect(await result(page, /summary:/)).toBe('summary: water goes up and down');
      expect(errors).toEqual([]);
    }, 120_000);
  });

  it('a declined sampling request reaches the 2025 server as the "user rejected" error it handles', async () => {
    await runTool(page, 'legacy__summarize', { topic: 'the tides' });
    const q = question(page, 'sampling');
    await q.getByText('Summarize the tides').waitFor();
    await q.getByRole('button', { name: 'Decline' }).click();
    expect(await result(page, /not summarized/)).toMatch(/not summarized: .*declined the sampling request/);
  }, 120_000);

  it("a cancelled sampling request of a 2026 server fails its call with the person's refusal (the core has no answer to retry with)", async () => {
    await runTool(page, 'modern__summarize', { topic: 'the tides' });
    const q = question(page, 'sampling');
    await q.getByText('Summarize the tides').waitFor();
    await q.getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /cancelled the sampling request/ })
      .waitFor();
    expect(await page.getByTestId('result').count()).toBe(0);
  }, 120_000);

  it('the question is reachable by keyboard, labelled, and passes the contrast check', async () => {
    await runTool(page, 'legacy__form');
    const q = question(page, 'input');
    await q.getByText('Tell us about you').waitFor();
    expect(
      await axeFindings(page, { selector: '.input-request', rules: ['color-contrast', 'label', 'button-name', 'select-name'] }),
    ).toEqual([]);
    // Tab from the call's own Cancel button reaches every control of the question, in order; Enter answers it.
    await page.getByRole('form', { name: 'try legacy__form' }).getByRole('button', { name: 'Cancel' }).focus();
    const reached: string[] = [];
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press('Tab');
      reached.push(
        (await page.evaluate(`(document.activeElement.labels?.[0]?.innerText ?? document.activeElement.innerText ?? '').trim()`)) as string,
      );
    }
    expect(reached.map((r) => r.split(/[\s*]/)[0])).toEqual(['Name', 'Age', 'Member', 'Colour', 'Accept', 'Decline', 'Cancel']);
    await q.getByRole('button', { name: 'Decline' }).focus();
    await page.keyboard.press('Enter');
    await result(page, 'form: decline');
  }, 120_000);

  it('a request of a cancelled call is withdrawn, and never reaches another page or MCP client of the caller', async () => {
    const other = await ctx.newPage();
    await other.goto(`${base()}/?token=${token()}#/caller/vscode/tools`); // a tab logs in on its own
    await other.getByRole('searchbox', { name: 'search tools' }).waitFor();
    const agent = await world.gateway('vscode', [], { elicitation: {} });
    const agentAsked: string[] = [];
    agent.setRequestHandler(ElicitRequestSchema, async (req) => {
      agentAsked.push(req.params.message);
      return { action: 'accept', content: { name: 'Mallory', age: 1 } };
    });
    await runTool(page, 'legacy__form');
    const q = question(page, 'input');
    await q.getByText('Tell us about you').waitFor();
    await page.getByRole('form', { name: 'try legacy__form' }).getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /cancel/i })
      .first()
      .waitFor();
    await q.waitFor({ state: 'detached' });
    // A question of a live call comes to this page only: not to the other page, not to the MCP client.
    await runTool(page, 'modern__form');
    await question(page, 'input').getByRole('button', { name: 'Cancel' }).click();
    await result(page, 'form: cancel');
    expect(await question(other, 'input').count()).toBe(0);
    expect(agentAsked).toEqual([]);
    await other.close();
    await agent.close();
  }, 120_000);

  it('the core checks every answer: a wrong one is refused with what was wrong, then a right one completes the call', async () => {
    const s: Socket = ioClient(`${base()}/app`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { authorization: `Bearer ${token()}`, origin: base() },
    });
    try {
      await new Promise<void>((resolve, reject) => (s.once('connect', resolve), s.once('connect_error', reject)));
      const asked = new Promise<InputRequest>((resolve) => s.once('input-request', resolve));
      const call = s.timeout(60_000).emitWithAck('call', { id: 'c1', caller: 'vscode', name: 'modern__form', args: {} }) as Promise<
        Reply<unknown>
      >;
      const req = await asked;
      expect(req).toMatchObject({ id: 'c1', method: 'elicitation/create', params: { message: 'Tell us about you' } });
      const answer = async (a: unknown) => (await s.timeout(10_000).emitWithAck('input-answer', a)) as Reply<unknown>;
      const refused = async (a: unknown, why: RegExp) => {
        const r = await answer(a);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error).toMatch(why);
      };
      await refused({ request: req.request, action: 'accept', content: { name: 'Ada', age: 'old' } }, /"Age" must be a number/);
      await refused({ request: req.request, action: 'accept', content: { name: 'Ada', age: 3, admin: true } }, /"admin" is not a field/);
      await refused({ request: req.request, action: 'accept', content: 'yes' }, /"content" must be a JSON object/);
      await refused({ request: req.request, action: 'maybe' }, /"action" must be accept, decline or cancel/);
      await refused({ request: 'input-999', action: 'accept' }, /no input request "input-999" is waiting/);
      await refused([], /expected an object/);
      expect(await answer({ request: req.request, action: 'accept', content: { name: 'Ada', age: 3, color: 'blue' } })).toEqual({
        ok: true,
        value: null,
      });
      const done = await call;
      expect(JSON.stringify(done)).toContain('form: accept {\\"name\\":\\"Ada\\",\\"age\\":3,\\"color\\":\\"blue\\"}');
      // Answered once: a second answer finds nothing waiting.
      await refused({ request: req.request, action: 'decline' }, /no input request/);
    } finally {
      s.close();
    }
  }, 120_000);
});
