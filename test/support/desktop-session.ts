import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AtspiBus, REGISTRY, ROOT_PATH } from '../../internal/infra/desktop-host/linux/atspi-bus.js';
import { connect } from 'node:net';
import { DIST, FIXTURES } from './paths.js';
import { killTagged, pidsWithTag, waitFor } from './procs.js';

export const GTK_FIXTURE = join(FIXTURES, 'desktop/gtk-fixture.py');
export const FIXTURE_APP = 'mcpd-fixture';

/** First line a child prints on `stream`, or an error naming the process if it exits first. */
function firstLine(child: ChildProcess, stream: 'stdout' | 'stderr', what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const s = child[stream]!;
    s.setEncoding('utf8');
    const onData = (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        s.off('data', onData);
        resolve(buf.slice(0, nl).trim());
      }
    };
    s.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready: ${buf}`)));
  });
}

/**
 * A private headless desktop for one test file: Xvfb on a display it picks itself (-displayfd), a private
 * session bus (dbus-daemon --print-address) from which the AT-SPI bus is D-Bus-activated, and apps.
 * Every process carries MCPD_TEST_TAG, so stop() can prove nothing is left.
 */
export class DesktopSession {
  readonly tag = randomUUID();
  readonly dir = mkdtempSync(join(tmpdir(), 'mcpd-desktop-'));
  display = '';
  busAddress = '';
  private readonly children: ChildProcess[] = [];

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, MCPD_TEST_TAG: this.tag, DISPLAY: this.display, DBUS_SESSION_BUS_ADDRESS: this.busAddress, XDG_RUNTIME_DIR: this.dir, HOME: this.dir, ...extra };
    delete env.NO_AT_BRIDGE; // an app started with it never appears in the tree
    return env;
  }

  private spawn(cmd: string, args: string[], env = this.env()): ChildProcess {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    return child;
  }

  async start(): Promise<void> {
    const xvfb = this.spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { ...process.env, MCPD_TEST_TAG: this.tag });
    this.display = `:${await firstLine(xvfb, 'stdout', 'Xvfb')}`;
    const bus = this.spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], { ...process.env, MCPD_TEST_TAG: this.tag, DISPLAY: this.display });
    this.busAddress = await firstLine(bus, 'stdout', 'dbus-daemon');
  }

  /** Starts an app and waits until the AT-SPI registry lists it under `appName`. */
  async launch(cmd: string, args: string[], appName: string): Promise<ChildProcess> {
    const app = this.spawn(cmd, args);
    let stderr = '';
    app.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await this.waitForApp(appName, () => {
      if (app.exitCode !== null) throw new Error(`${cmd} exited (${app.exitCode}): ${stderr}`);
    });
    return app;
  }

  async launchFixture(): Promise<ChildProcess> {
    return this.launch('/usr/bin/python3', [GTK_FIXTURE], FIXTURE_APP);
  }

  /** Real condition: the registry root has a child application of that name with a window. */
  async waitForApp(appName: string, check: () => void = () => undefined): Promise<void> {
    let bus: AtspiBus | undefined;
    try {
      await waitFor(
        `${appName} in the AT-SPI tree`,
        async () => {
          check();
          try {
            // The a11y bus is D-Bus-activated by the first GetAddress; until it is up, connecting can fail.
            bus ??= await AtspiBus.connect(this.busAddress);
            for (const a of await bus.children({ bus: REGISTRY, path: ROOT_PATH })) {
              const name = await bus.prop(a, 'org.a11y.atspi.Accessible', 'Name').catch(() => '');
              if (name === appName && (await bus.children(a).catch(() => [])).length > 0) return true;
            }
          } catch {
            bus?.close();
            bus = undefined;
          }
          return false;
        },
        30_000,
        100,
      );
    } finally {
      bus?.close();
    }
  }

  /** Stops apps, the bus and the display; fails if anything with the tag had to be killed. */
  async stop(): Promise<void> {
    for (const c of [...this.children].reverse()) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    let leftover: number[] = [];
    try {
      await waitFor('every desktop process to exit', () => pidsWithTag(this.tag).filter((p) => p !== process.pid).length === 0, 15_000);
    } catch {
      leftover = killTagged(this.tag);
    }
    rmSync(this.dir, { recursive: true, force: true });
    if (leftover.length) throw new Error(`desktop processes left behind: ${leftover.join(', ')}`);
  }
}

export const DESKTOP_HOST = join(DIST, 'cmd/mcpd-desktop-host/main.js');

/** Exits of a child, as a promise that is already settled when it has exited. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts `mcpd-desktop-host --socket` in the session and waits until its socket accepts connections. */
export async function startSocketHost(session: DesktopSession, socket: string, workspaceRoot: string): Promise<{ child: ChildProcess; stderr: string[] }> {
  const stderr: string[] = [];
  const child = spawn(process.execPath, [DESKTOP_HOST, '--socket', socket, '--workspace-root', workspaceRoot], { env: session.env(), stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => stderr.push(d));
  await waitFor('the desktop host socket', async () => {
    if (child.exitCode !== null) throw new Error(`mcpd-desktop-host exited (${child.exitCode}): ${stderr.join('')}`);
    return new Promise<boolean>((resolve) => {
      const c = connect(socket);
      c.once('connect', () => (c.destroy(), resolve(true)));
      c.once('error', () => resolve(false));
    });
  });
  return { child, stderr };
}
