import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { TestWorld } from '../support/core-process.js';
import { dashboardToken } from '../support/dashboard-page.js';
import { freePort } from '../support/free-port.js';
import { MCPD } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';

const run = promisify(execFile);
/** Runs argv as uid/gid 65534 (nobody): another local user, as the red team simulated one. */
const asNobody = (argv: string[]) => run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...argv]);

/** Every process's command line on this machine, as `ps` shows it to any user. */
function allCommandLines(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      out.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // the process ended while we looked: nothing to read
    }
  }
  return out;
}

describe('the dashboard login cannot be won by another user', () => {
  let world: TestWorld;
  let browser: Browser;
  let port: number;
  const base = () => `http://127.0.0.1:${port}`;
  const token = () => dashboardToken(world);
  /** The page's per-login credential, from a page served for a login link or the token. */
  const sessionOf = (html: string) => /<meta name="mcpd-session" content="([\w-]+)"/.exec(html)?.[1] ?? '';

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('echo')),
      'callers.yaml': 'callers: { vscode: default }\n',
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    // Only the state directory's and the file's own modes may keep another user out (not the test's temp dir).
    chmodSync(world.dir, 0o711);
    await world.startCore();
    browser = await launchChromium(world.env());
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await world?.cleanup();
  });

  it('hands the browser a private file, not a login link: another uid reading its argv, environment and that file gets nothing; the real browser logs in', async () => {
    // A fake $BROWSER that records its pid and argv and stays alive until the test lets it go (a FIFO it reads).
    const pidFile = join(world.dir, 'browser.pid');
    const release = join(world.dir, 'browser.release');
    execFileSync('mkfifo', [release]);
    const script = join(world.dir, 'browser.sh');
    writeFileSync(script, `#!/bin/sh\necho $$ > ${JSON.stringify(pidFile)}\nread x < ${JSON.stringify(release)}\n`, { mode: 0o755 });
    let opened = '';
    try {
      await run(process.execPath, [MCPD, 'open', '--socket', world.socket, '--no-autostart'], { env: world.env({ BROWSER: script }) });
      await waitFor('the browser to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      const pid = readFileSync(pidFile, 'utf8').trim();
      opened = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[2] ?? '';
      expect(opened).toMatch(/^file:\/\/\/.*\/open-[\w-]+\.html$/);
      expect(allCommandLines().filter((c) => c.includes(token()) || /login=/.test(c))).toEqual([]);

      // Another local user reads the browser's command line, its environment and the file it names: nothing usable.
      const file = fileURLToPath(opened);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const probe = await asNobody(['sh', '-c', `cat /proc/${pid}/cmdline; cat /proc/${pid}/environ; cat '${file}'; true`]);
      expect(probe.stdout).not.toMatch(/login=/);
      expect(probe.stderr).toMatch(/environ: Permission denied/);
      expect(probe.stderr).toMatch(/Permission denied/);
      expect(probe.stderr.match(/Permission denied/g)?.length).toBe(2);
    } finally {
      writeFileSync(release, 'go\n'); // lets the fake browser end
    }
    // The real browser (the same user) opens what it was handed and lands on a working dashboard.
    const file = fileURLToPath(opened);
    const link = /url=([^"]+)"/.exec(readFileSync(file, 'utf8'))?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(link).toMatch(new RegExp(`^${base()}/\\?login=[\\w-]+\\.\\d+\\.[\\w-]+#/overview$`));
    const page = await browser.newPage();
    await page.goto(opened);
    await page.getByRole('combobox', { name: 'caller' }).or(page.getByText('vscode').first()).first().waitFor();
    expect(page.url()).toBe(`${base()}/#/overview`);
    await page.locator('[data-conn]').waitFor({ state: 'detached' });
    await page.close();
    // Used once: the file is gone and the link it held is refused.
    expect(existsSync(file)).toBe(false);
    const again = await fetch(link);
    expect(again.status).toBe(401);
    expect(await again.text()).toMatch(/already used/);
  }, 120_000);

  it('mcpd open --print-url prints a link that works once', async () => {
    const { stdout } = await run(process.execPath, [MCPD, 'open', '--print-url', '--socket', world.socket], { env: world.env() });
    const link = stdout.trim();
    expect(link).not.toContain(token());
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(200);
    expect(sessionOf(await first.text())).toMatch(/^[\w-]{43}$/);
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(await again.text()).toMatch(/already used.*run "mcpd open" for a fresh login link/);
  });

  it('refuses the Socket.IO handshake itself without a credential, from any uid', async () => {
    const handshake = `${base()}/socket.io/?EIO=4&transport=polling`;
    const nobody = await asNobody(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', handshake]);
    expect(nobody.stdout).toBe('403');
    expect((await fetch(`${handshake}&session=wrong`)).status).toBe(403);
    expect((await fetch(handshake, { headers: { cookie: `mcpd_app_${port}=${encodeURIComponent(token())}` } })).status).toBe(403);
    const session = sessionOf(await (await fetch(`${base()}/?token=${token()}`)).text());
    const ok = await fetch(`${handshake}&session=${session}`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/"sid":/);
    const bearer = await fetch(handshake, { headers: { authorization: `Bearer ${token()}` } });
    expect(bearer.status).toBe(200);
  });
});
