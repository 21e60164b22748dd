import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreWorld } from '../support/core-world.js';
import { TestWorld } from '../support/core-process.js';
import { INITIALIZE, rawPost, startHttpGatewayProc, stopProc } from '../support/http-gateway.js';
import { MCPD, MCPDCTL, MCPDMCP } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';

const run = promisify(execFile);
/** uid of "nobody": another local user. */
const OTHER_UID = 65534;
const isRoot = userInfo().uid === 0;

/** Runs a command to its end; resolves with its exit code and output (never rejects on a non-zero exit). */
async function outcome(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return run(process.execPath, args, { env, timeout: 30_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
}

describe.skipIf(!isRoot)('socket and log squatting — needs root to chown', () => {
  let world: TestWorld;
  let scratch: string;
  const servers: Server[] = [];
  beforeAll(() => {
    world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx')), 'callers.yaml': 'callers: {}\n' });
    scratch = mkdtempSync(join(tmpdir(), 'mcpd-squat-'));
  });
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    rmSync(scratch, { recursive: true, force: true });
    await world.cleanup();
  });

  for (const mode of [0o777, 0o755]) {
    it(`the core refuses a socket directory another user owns (mode ${mode.toString(8)})`, async () => {
      const dir = join(scratch, `foreign-${mode.toString(8)}`);
      mkdirSync(dir);
      chownSync(dir, OTHER_UID, OTHER_UID);
      chmodSync(dir, mode);
      const r = await outcome([MCPD, '--config', world.configDir, '--socket', join(dir, 'control.sock')], world.env());
      expect(r.code).toBe(1);
      expect(r.out).toContain(`the control socket directory ${dir} is not private: it is owned by uid ${OTHER_UID}`);
      expect(r.out).toMatch(/mkdir -m 700/);
    });
  }

  it('mcpdctl and mcpdmcp refuse a socket another user owns', async () => {
    const dir = join(scratch, 'squatted');
    mkdirSync(dir, { mode: 0o755 });
    const sock = join(dir, 'control.sock');
    const squatter = createServer((c) => c.destroy());
    servers.push(squatter);
    await new Promise<void>((r) => squatter.listen(sock, r));
    chownSync(sock, OTHER_UID, OTHER_UID);
    const ctl = await outcome([MCPDCTL, '--socket', sock, 'status'], world.env());
    expect(ctl.code).toBe(1);
    expect(ctl.out).toContain(`the control socket ${sock} is owned by uid ${OTHER_UID}`);
    const gw = await outcome([MCPDMCP, 'alice', '--socket', sock, '--no-autostart'], world.env());
    expect(gw.code).toBe(1);
    expect(gw.out).toContain(`the control socket ${sock} is owned by uid ${OTHER_UID}`);
  });
});

describe('the autostarted core log is never written through a link', () => {
  it('refuses a planted mcpd.log symlink and leaves its target untouched', async () => {
    const world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx')), 'callers.yaml': 'callers: {}\n' });
    const runDir = join(world.dir, 'run');
    mkdirSync(runDir, { mode: 0o700 });
    const victim = join(world.dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(runDir, 'mcpd.log'));
    try {
      const gw = spawn(
        process.execPath,
        [MCPDMCP, 'alice', '--socket', world.socket, '--config', world.configDir, '--core-wait-ms', '20000'],
        {
          env: world.env(),
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let out = '';
      gw.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      let err = '';
      gw.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const send = (m: unknown) => gw.stdin.write(`${JSON.stringify(m)}\n`);
      send(INITIALIZE);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      await new Promise<void>((resolve) => {
        const check = () => (out.includes('"id":2') ? resolve() : undefined);
        gw.stdout.on('data', check);
        check();
      });
      expect(out).toMatch(/mcpd\.log is a symbolic link/);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      await stopProc(gw);
      expect(err).toBeDefined();
    } finally {
      await world.cleanup();
    }
  });
});

describe('--http tokens', () => {
  const world = coreWorld({ 'profiles/default.yaml': profile(echoServer('fx')), 'callers.yaml': 'callers: {}\n' });

  const http = (extra: string[], env: NodeJS.ProcessEnv = world.env()) =>
    startHttpGatewayProc('alice', ['--socket', world.socket, '--no-autostart', '--http', '127.0.0.1:0', ...extra], env);
  const init = (url: string, token?: string) =>
    rawPost(
      url,
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      INITIALIZE,
    );

  it('warns that any local user can call the tools when loopback runs without a token', async () => {
    const gw = await http([]);
    try {
      await expect.poll(() => gw.stderr()).toMatch(/warning: no token: any local user can call this caller's tools/);
    } finally {
      await stopProc(gw.proc);
    }
  });

  it('--token auto generates a token, prints the client settings, and requires it', async () => {
    const gw = await http(['--token', 'auto']);
    try {
      await expect.poll(() => gw.stderr()).toMatch(/client settings: \{/);
      const settings = JSON.parse(/client settings: (\{.*\})/.exec(gw.stderr())?.[1] ?? 'null') as {
        url: string;
        headers: { Authorization: string };
      };
      expect(settings.url).toBe(gw.url);
      const token = settings.headers.Authorization.replace('Bearer ', '');
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect((await init(gw.url)).status).toBe(401);
      expect((await init(gw.url, token)).status).toBe(200);
    } finally {
      await stopProc(gw.proc);
    }
  });

  it('--token-file and MCPD_HTTP_TOKEN keep the token off the command line; --token warns', async () => {
    const file = join(world.dir, 'token');
    writeFileSync(file, 'file-token-123456\n', { mode: 0o600 });
    const fromFile = await http(['--token-file', file]);
    try {
      expect((await init(fromFile.url, 'file-token-123456')).status).toBe(200);
      expect((await init(fromFile.url, 'wrong')).status).toBe(401);
      expect(fromFile.stderr()).not.toMatch(/warning/);
    } finally {
      await stopProc(fromFile.proc);
    }
    const fromEnv = await http([], { ...world.env(), MCPD_HTTP_TOKEN: 'env-token-123456' });
    try {
      expect((await init(fromEnv.url, 'env-token-123456')).status).toBe(200);
    } finally {
      await stopProc(fromEnv.proc);
    }
    const onArgv = await http(['--token', 'argv-token-123456']);
    try {
      await expect.poll(() => onArgv.stderr()).toMatch(/--token is visible to every local user in the process list/);
    } finally {
      await stopProc(onArgv.proc);
    }
  });
});
