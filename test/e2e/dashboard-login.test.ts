import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
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

describe('the dashboard login cannot be replayed by another user', () => {
  let world: TestWorld;
  let port: number;
  const base = () => `http://127.0.0.1:${port}`;
  const token = () => (JSON.parse(readFileSync(join(world.dir, 'run', 'dashboard.json'), 'utf8')) as { token: string }).token;

  beforeAll(async () => {
    port = await freePort();
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('echo')),
      'runtime.yaml': `metricsAddress: 127.0.0.1:${port}\n`,
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('opens the browser with a single-use login link: no process shows the token, and a second use (by another uid) is refused', async () => {
    // A fake $BROWSER that records its pid and stays alive until the test lets it go (a FIFO it reads).
    const pidFile = join(world.dir, 'browser.pid');
    const release = join(world.dir, 'browser.release');
    execFileSync('mkfifo', [release]);
    const script = join(world.dir, 'browser.sh');
    writeFileSync(script, `#!/bin/sh\necho $$ > ${JSON.stringify(pidFile)}\nread x < ${JSON.stringify(release)}\n`, { mode: 0o755 });
    try {
      await run(process.execPath, [MCPD, 'open', '--socket', world.socket, '--no-autostart'], { env: world.env({ BROWSER: script }) });
      await waitFor('the browser to start', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      const pid = readFileSync(pidFile, 'utf8').trim();
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const link = argv.find((a) => a.startsWith(base())) ?? '';
      expect(link).toMatch(/\/\?login=[\w-]+\.\d+\.[\w-]+#\/overview$/);
      expect(allCommandLines().filter((c) => c.includes(token()))).toEqual([]);

      // The browser trades the link for the cookie...
      const first = await fetch(link, { redirect: 'manual' });
      expect(first.status).toBe(303);
      const [cookie = ''] = (first.headers.get('set-cookie') ?? '').split(';');
      expect(cookie).toBe(`mcpd_app_${port}=${encodeURIComponent(token())}`);
      expect((await fetch(`${base()}/`, { headers: { cookie } })).status).toBe(200);
      // ...and another local user who read it from `ps` gets nothing.
      const replay = await asNobody(['curl', '-s', '-o', '-', '-w', '%{http_code}', link]);
      expect(replay.stdout).toMatch(/already used[^]*401$/);
    } finally {
      writeFileSync(release, 'go\n'); // lets the fake browser end
    }
  });

  it('mcpd open --print-url prints a link that works once', async () => {
    const { stdout } = await run(process.execPath, [MCPD, 'open', '--print-url', '--socket', world.socket], { env: world.env() });
    const link = stdout.trim();
    expect(link).not.toContain(token());
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(303);
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(await again.text()).toMatch(/already used.*run "mcpd open" for a fresh one/);
  });

  it('refuses the Socket.IO handshake itself without the cookie, from any uid', async () => {
    const handshake = `${base()}/socket.io/?EIO=4&transport=polling`;
    const nobody = await asNobody(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', handshake]);
    expect(nobody.stdout).toBe('403');
    expect((await fetch(handshake, { headers: { cookie: `mcpd_app_${port}=wrong` } })).status).toBe(403);
    const ok = await fetch(handshake, { headers: { cookie: `mcpd_app_${port}=${encodeURIComponent(token())}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/"sid":/);
  });
});
