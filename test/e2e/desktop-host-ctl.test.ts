import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { DESKTOP_HOST, exited } from '../support/desktop-session.js';

/**
 * The real host binary with no desktop at all (no DISPLAY, no session bus): doctor names what is missing,
 * desktop methods fail with DESKTOP_PERMISSION_MISSING, the CLI reports both, in text and --json.
 */
describe('mcpd-desktop-host without a desktop, driven by mcpdctl desktop-host', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcpd-dh-ctl-')));
  const ws = join(dir, 'ws');
  const socket = join(dir, 'run', 'host.sock');
  let host: ChildProcess;
  const env = { ...process.env };
  delete env.DISPLAY;
  delete env.DBUS_SESSION_BUS_ADDRESS;

  const ctl = (...args: string[]) => {
    const r = spawnSync(process.execPath, [MCPDCTL, 'desktop-host', socket, ...args, '--workspace', ws], { env, encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  beforeAll(async () => {
    mkdirSync(ws, { recursive: true });
    host = spawn(process.execPath, [DESKTOP_HOST, '--socket', socket, '--workspace-root', dir], { env, stdio: 'ignore' });
    await waitFor('the host socket', () => ctl('health').code === 0);
  });
  afterAll(async () => {
    host.kill('SIGTERM');
    expect(await exited(host)).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('health answers; doctor names exactly what is missing', () => {
    expect(ctl('health').out).toMatch(/^host \S+ \(linux-atspi, linux /);
    const doctor = ctl('doctor', '--json');
    expect(doctor.code).toBe(0);
    const report = JSON.parse(doctor.out) as { healthy: boolean; issues: string[] };
    expect(report.healthy).toBe(false);
    expect(report.issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^display: DISPLAY is not set: no display/),
        expect.stringMatching(/^accessibility: DBUS_SESSION_BUS_ADDRESS is not set/),
      ]),
    );
    expect(ctl('doctor').out).toMatch(/^NOT healthy:\n {2}- /);
  });

  it('a desktop method fails with DESKTOP_PERMISSION_MISSING (exit 1), as text and as --json', () => {
    const text = ctl('find', '--role', 'AXButton');
    expect(text.code).toBe(1);
    expect(text.err).toMatch(/^DESKTOP_PERMISSION_MISSING: the accessibility bus is not reachable/);
    const json = ctl('observe', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'DESKTOP_PERMISSION_MISSING', retryable: false } });
  });

  it('--help prints the usage and exits 0', () => {
    expect(ctl('--help')).toMatchObject({ code: 0, out: expect.stringMatching(/^usage: mcpdctl desktop-host <socket> <action>/) });
  });

  it('ui-control actions need --yes; bad usage is exit 2 with the reason', () => {
    expect(ctl('click', '--title', 'Send')).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^click acts on the desktop: add --yes to confirm it/),
    });
    expect(ctl('wait', '--title', 'x')).toMatchObject({ code: 2, err: expect.stringMatching(/^wait needs --timeout MS/) });
    expect(ctl('fly')).toMatchObject({ code: 2, err: expect.stringMatching(/^unknown desktop-host action "fly"/) });
    expect(ctl('find', '--limit', 'many')).toMatchObject({ code: 2, err: expect.stringMatching(/--limit must be a non-negative integer/) });
  });

  it('a workspace outside the root is refused by the host', () => {
    const r = spawnSync(process.execPath, [MCPDCTL, 'desktop-host', socket, 'find', '--title', 'x', '--workspace', tmpdir()], {
      env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^DESKTOP_WORKSPACE_FORBIDDEN: /);
  });

  it('no host at the socket: a clear error', () => {
    const r = spawnSync(process.execPath, [MCPDCTL, 'desktop-host', join(dir, 'nothing.sock'), 'health'], { env, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot connect to the desktop host at .*nothing\.sock/);
  });
});
