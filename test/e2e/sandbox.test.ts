import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TestWorld } from '../support/core-process.js';
import { openDashboard } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { ctl } from '../support/package-pins.js';
import { FIXTURES } from '../support/paths.js';
import { profile, server } from '../support/profiles.js';

const PROBE = join(FIXTURES, 'servers/sandbox-probe.mjs');
type ToolResult = { content: { type: string; text: string }[] };
type Probe = { ok: boolean; detail: unknown };

/** Two loopback HTTP servers: one the sandbox allows, one it does not. */
function listener(tag: string): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer((req, res) => res.end(`${tag} ${req.url}`));
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}
const portOf = (s: Server) => (s.address() as AddressInfo).port;

describe('a sandboxed server (bubblewrap, docs/sandbox.md)', () => {
  let world: TestWorld;
  let one: Client;
  let two: Client;
  let allowed: Server;
  let denied: Server;
  let dashboardPort: number;
  const path = (...p: string[]) => join(world.dir, ...p);

  beforeAll(async () => {
    allowed = await listener('allowed');
    denied = await listener('denied');
    dashboardPort = await freePort();
    world = new TestWorld({ 'runtime.yaml': `metricsAddress: 127.0.0.1:${dashboardPort}\n` });
    const home = path('home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh/id_rsa'), 'SECRET KEY');
    mkdirSync(path('granted-read'), { recursive: true });
    writeFileSync(path('granted-read/notes.txt'), 'readable');
    mkdirSync(path('granted-write'), { recursive: true });
    // `read` of the whole test folder covers the store, the state and the socket folder: those stay hidden.
    const box = (extraRead = '') =>
      `{filesystem: {read: [${JSON.stringify(world.dir)}, ${JSON.stringify(path('granted-read'))}${extraRead}], write: [${JSON.stringify(path('granted-write'))}]}, network: {allow: ["127.0.0.1:${portOf(allowed)}"]}}`;
    const probe = (name: string, extra: Record<string, string> = {}, env: Record<string, string> = {}) =>
      server(name, [process.execPath, PROBE], { cwd: JSON.stringify(path('granted-read')), ...extra }, env);
    world.write('profiles/default.yaml', profile(probe('open'), probe('boxed', { sandbox: box() }), probe('other', { sandbox: 'true' })));
    // The same spec under another name in another profile: one pool, one sandboxed instance.
    world.write(
      'profiles/dev.yaml',
      profile(
        probe('boxed2', { sandbox: box() }),
        probe('doomed', { sandbox: 'true' }, { PROBE_READ_AT_START: join(home, '.ssh/id_rsa') }),
      ),
    );
    world.write('callers.yaml', 'callers:\n  one: default\n  two: dev\n');
    await world.startCore({ HOME: home });
    one = await world.gateway('one');
    two = await world.gateway('two');
  });
  afterAll(async () => {
    await world.cleanup();
    allowed.close();
    denied.close();
  });

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}): Promise<Probe> => {
    const r = (await client.callTool({ name, arguments: args })) as ToolResult;
    return JSON.parse(r.content.map((c) => c.text).join('')) as Probe;
  };

  it('cannot read the home folder, the store, the state or the control socket; the unsandboxed server can', async () => {
    const state = path('store/.mcpd-state');
    // A `.tmp` file is one being renamed into place (the audit anchor's, moved after each batch): it may be gone by the read.
    const stateFiles = readdirSync(state).filter((f) => !f.endsWith('.tmp'));
    expect(stateFiles.length).toBeGreaterThan(0);
    const secrets = [path('home/.ssh/id_rsa'), path('store/profiles/default.yaml'), ...stateFiles.map((f) => join(state, f)), world.socket];
    for (const p of secrets) {
      expect((await call(one, 'open__read', { path: p })).detail, p).not.toBe('ENOENT'); // a socket reads as ENXIO
      expect(await call(one, 'boxed__read', { path: p }), p).toEqual({ ok: false, detail: 'ENOENT' });
    }
    // A hidden folder is an empty one.
    expect(await call(one, 'boxed__read', { path: state })).toEqual({ ok: true, detail: '' });
    expect(await call(one, 'boxed__read', { path: path('granted-read/notes.txt') })).toEqual({ ok: true, detail: 'readable' });
    expect(await call(one, 'boxed__read', { path: PROBE })).toMatchObject({ ok: true }); // its own package
  });

  it('writes only to its write grants and a private /tmp', async () => {
    expect(await call(one, 'boxed__write', { path: path('granted-write/out.txt'), text: 'hi' })).toMatchObject({ ok: true });
    expect(readFileSync(path('granted-write/out.txt'), 'utf8')).toBe('hi');
    expect(await call(one, 'boxed__write', { path: path('granted-read/x.txt') })).toEqual({ ok: false, detail: 'EROFS' });
    expect(existsSync(path('granted-read/x.txt'))).toBe(false);
    expect(await call(one, 'open__write', { path: path('granted-read/y.txt') })).toMatchObject({ ok: true });

    const marker = `/tmp/mcpd-sandbox-marker-${world.tag}`;
    expect(await call(one, 'boxed__write', { path: marker, text: 'mine' })).toMatchObject({ ok: true });
    expect(existsSync(marker)).toBe(false); // not the machine's /tmp
    expect(await call(one, 'other__read', { path: marker })).toEqual({ ok: false, detail: 'ENOENT' }); // another instance's
    // Pools share sandboxed instances as before: the other profile's boxed2 is the same process, with the same /tmp.
    expect(await call(two, 'boxed2__read', { path: marker })).toEqual({ ok: true, detail: 'mine' });
  });

  it('connects only to allowed hosts, and a denied connection is logged with its host', async () => {
    const ok = `http://127.0.0.1:${portOf(allowed)}/a`;
    const no = `http://127.0.0.1:${portOf(denied)}/b`;
    expect(await call(one, 'boxed__fetch', { url: ok })).toEqual({ ok: true, detail: '200 allowed /a' });
    expect(await call(one, 'boxed__fetch', { url: no })).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^403 .*not in network\.allow/),
    });
    await world.waitForLogLine('the denial in the core log', new RegExp(`denied connection to 127\\.0\\.0\\.1:${portOf(denied)}`));
    expect(await call(one, 'boxed__connect', { host: '127.0.0.1', port: portOf(denied) })).toEqual({ ok: false, detail: 'ECONNREFUSED' });
    expect(await call(one, 'other__fetch', { url: ok })).toEqual({ ok: false, detail: 'ECONNREFUSED' }); // sandbox: true = no network
    expect(await call(one, 'open__fetch', { url: no })).toEqual({ ok: true, detail: '200 denied /b' });
  });

  it('status shows each sandboxed server its grants', async () => {
    const pools = (await world.calls().status()).pools;
    const boxed = pools.find((p) => p.references.some((r) => r.endsWith('/boxed')));
    expect(boxed?.target).toContain(
      `[sandbox read: ${world.dir}, ${path('granted-read')}; write: ${path('granted-write')}; network: 127.0.0.1:${portOf(allowed)}]`,
    );
    expect(pools.find((p) => p.references.some((r) => r.endsWith('/open')))?.target).not.toContain('[sandbox');
  });

  it("mcpdctl status SERVER and the dashboard's pool card show its grants", async () => {
    const grants = `read: ${world.dir}, ${path('granted-read')}; write: ${path('granted-write')}; network: 127.0.0.1:${portOf(allowed)}`;
    const text = await ctl(world, ['status', 'boxed']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`[sandbox ${grants}]`);
    expect((await ctl(world, ['status', 'open'])).stdout).not.toContain('[sandbox');

    const { browser, page, errors } = await openDashboard(world, dashboardPort, '#/overview');
    try {
      // boxed and boxed2 are one pool; its card is named by whichever spec started it.
      const card = page.locator('li.pool').filter({ hasText: 'default/boxed' });
      await expect.poll(() => card.locator('.sandbox').innerText(), { timeout: 60_000 }).toBe(`sandbox: ${grants}`);
      const open = page.locator('[data-pool="open"]');
      await open.waitFor();
      expect(await open.locator('.sandbox').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('a server that fails because the sandbox hid a path says which', async () => {
    await expect(two.callTool({ name: 'doomed__env', arguments: {} })).rejects.toThrow(
      new RegExp(`sandbox may have refused it: paths ${path('home/.ssh/id_rsa').replace(/[.]/g, '\\.')} \\(ENOENT\\)`),
    );
  });
});
