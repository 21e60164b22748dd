import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { DIST, MCPD, MCPDCTL, REPO } from '../support/paths.js';
import { echoServer, profile } from '../support/profiles.js';
import { waitFor } from '../support/procs.js';

const run = promisify(execFile);
type Ran = { code: number; stdout: string; stderr: string };
const VERSION = (JSON.parse(readFileSync(resolve(REPO, 'package.json'), 'utf8')) as { version: string }).version;

async function exec(args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return run(process.execPath, args, { env, timeout: 30_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe('command-line edges', () => {
  let world: TestWorld;
  const ctl = (...args: string[]) => exec([MCPDCTL, '--socket', world.socket, ...args], world.env());
  beforeAll(async () => {
    world = new TestWorld({
      'profiles/default.yaml': profile(echoServer('fx', { idleSeconds: 300 })),
      'profiles/dev.yaml': profile(echoServer('dx', { idleSeconds: 300 })),
      'callers.yaml': 'callers: { vscode: dev, cursor: default }\n',
    });
    await world.startCore();
  });
  afterAll(async () => world.cleanup());

  it('--version works on every binary and prints the package version', async () => {
    for (const bin of ['mcpd', 'mcpdmcp', 'mcpdctl', 'mcpd-docs']) {
      const r = await exec([join(DIST, 'cmd', bin, 'main.js'), '--version'], world.env());
      expect({ bin, code: r.code, out: r.stdout.trim() }).toEqual({ bin, code: 0, out: VERSION });
    }
  });

  it('mcpdctl help, and per-command help', async () => {
    const all = await ctl('help');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/tools <caller>/);
    const one = await ctl('tools', '--help');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^usage: mcpdctl tools <caller>\n/);
    expect(one.stdout).not.toMatch(/validate/);
    const viaHelp = await ctl('help', 'call');
    expect(viaHelp.stdout).toMatch(/^usage: mcpdctl call <caller> <tool> \[--args JSON\] \[--timeout MS\]/);
  });

  it('rejects extra positionals, unknown flags and unknown commands with exit 2', async () => {
    const extra = await ctl('call', 'c', 'fx__echo', 'a=2');
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^mcpdctl call: unexpected argument "a=2" \(tool arguments go in --args/);
    const flag = await ctl('tools', 'c', '--bogus');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/mcpdctl tools: .*--bogus/);
    const missing = await ctl('read', 'c');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/mcpdctl read: missing <uri>/);
    const unknown = await ctl('tols', 'c');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "tols"; did you mean "tools"\?/);
  });

  it('says when a caller is not in callers.yaml and names the known ones', async () => {
    const r = await ctl('tools', 'nosuchcaller');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/fx__echo/);
    expect(r.stderr).toContain(
      'caller "nosuchcaller" is not in callers.yaml, so it gets profile "default"; known callers: cursor (default), vscode (dev)',
    );
    const known = await ctl('tools', 'vscode');
    expect(known.stderr).toBe('');
    expect(known.stdout).toMatch(/dx__echo/);
  });

  it('`mcpdctl logs <caller> -f | head -1` ends quietly when head goes away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpd-epipe-'));
    const code = join(dir, 'code');
    const err = join(dir, 'err');
    const script = '( "$NODE" "$CTL" --socket "$SOCK" logs cursor -f 2>"$ERR"; echo $? >"$CODE" ) | head -1 >/dev/null';
    const sh = spawn('bash', ['-c', script], {
      env: { ...world.env(), NODE: process.execPath, CTL: MCPDCTL, SOCK: world.socket, ERR: err, CODE: code },
      stdio: 'ignore',
    });
    const shDone = new Promise((r) => sh.once('exit', r));
    try {
      // Each call makes the server write a stderr line, a log entry for the caller: once head has
      // left, the next one mcpdctl writes hits the closed pipe.
      await waitFor(
        'mcpdctl to end after head -1 left',
        async () => {
          await ctl('call', 'cursor', 'fx__stderr', '--args', '{"line":"tick"}');
          return existsSync(code) && readFileSync(code, 'utf8').trim() !== '';
        },
        60_000,
      );
      await shDone;
      expect(readFileSync(code, 'utf8').trim()).toBe('0');
      expect(readFileSync(err, 'utf8')).not.toMatch(/EPIPE|Error/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a refused start (another core on the socket) scaffolds nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'mcpd-empty-'));
    try {
      const r = await exec([MCPD, '--config', empty, '--socket', world.socket], world.env());
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/another mcpd is already serving/);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
