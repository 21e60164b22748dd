import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { HeadlessDesktop } from '../fixtures/desktop/headless-desktop.js';
import { DIST } from './paths.js';
import { killTagged, pidsWithTag, waitFor } from './procs.js';

export { exited, FIXTURE_APP, GTK_FIXTURE } from '../fixtures/desktop/headless-desktop.js';

export const DESKTOP_HOST = `${DIST}/cmd/mcpd-desktop-host/main.js`;

/** The headless desktop of a test file; stop() proves that nothing carrying its tag is left running. */
export class DesktopSession extends HeadlessDesktop {
  override async stop(): Promise<void> {
    await this.stopChildren();
    let leftover: number[] = [];
    try {
      // D-Bus-activated helpers (at-spi-bus-launcher, registryd) are not our children: wait for them by tag.
      await waitFor('every desktop process to exit', () => pidsWithTag(this.tag).filter((p) => p !== process.pid).length === 0, 15_000);
    } catch {
      leftover = killTagged(this.tag);
    }
    rmSync(this.dir, { recursive: true, force: true });
    if (leftover.length) throw new Error(`desktop processes left behind: ${leftover.join(', ')}`);
  }
}

/** Starts `mcpd-desktop-host --socket` in the session and waits until its socket accepts connections. */
export async function startSocketHost(
  session: HeadlessDesktop,
  socket: string,
  workspaceRoot: string,
): Promise<{ child: ChildProcess; stderr: string[] }> {
  const stderr: string[] = [];
  const child = spawn(process.execPath, [DESKTOP_HOST, '--socket', socket, '--workspace-root', workspaceRoot], {
    env: session.env(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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

/** The desktop host as a server `desk` of a profile (MCP face), on the session's headless desktop. */
export function deskServer(session: HeadlessDesktop, workspaceRoot: string = session.dir): string {
  const env = session.env();
  return [
    '  - name: desk',
    `    cmd: [${JSON.stringify(process.execPath)}, ${JSON.stringify(DESKTOP_HOST)}, --mcp, --workspace-root, ${JSON.stringify(workspaceRoot)}, --poll-ms, "200"]`,
    '    strategy: singleton',
    // As docs/desktop-bridge.md says: the core's own window reads must not overlap a click, or the click's
    // elicitation has two possible owners and is refused (decision 20).
    '    maxConcurrent: 1',
    '    idleSeconds: 300',
    '    env:',
    '      MCPD_TEST_TAG: ${MCPD_TEST_TAG}',
    ...['DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'HOME', 'XDG_RUNTIME_DIR'].map((k) => `      ${k}: ${JSON.stringify(env[k])}`),
  ].join('\n');
}
