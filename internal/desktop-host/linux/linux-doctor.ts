import type { DoctorReport, PermissionCheck } from '../../contract/desktop-bridge/types.js';
import { run } from './x-tools.js';

const ok = (purpose: string, detail?: string): PermissionCheck => ({ granted: true, required: true, purpose, detail });
const missing = (purpose: string, detail: string): PermissionCheck => ({ granted: false, required: true, purpose, detail });

async function tool(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    await run(cmd, args, env, 5000);
    return undefined;
  } catch (e) {
    return (e as Error).message.includes('ENOENT') ? `${cmd} is not installed` : (e as Error).message;
  }
}

/**
 * What a Linux desktop needs, each named exactly: an X display, the session bus, the AT-SPI bus and
 * registry, xdotool and ImageMagick `import`. `issues` says what to fix.
 */
export async function linuxDoctor(env: NodeJS.ProcessEnv, probeRegistry: () => Promise<unknown>): Promise<DoctorReport> {
  const issues: string[] = [];
  const display = env.DISPLAY;
  let displayCheck: PermissionCheck;
  if (!display) displayCheck = missing('X display for input and screenshots', 'DISPLAY is not set: no display');
  else {
    const err = await tool('xdotool', ['getdisplaygeometry'], env);
    displayCheck = err
      ? missing('X display for input and screenshots', `display ${display} is not usable: ${err}`)
      : ok('X display for input and screenshots', display);
  }
  const xdotool = (await tool('xdotool', ['version'], env))?.includes('not installed')
    ? missing('key combos and typing', 'xdotool is not installed (apt-get install xdotool)')
    : ok('key combos and typing');
  const importErr = (await tool('import', ['-version'], env))?.includes('not installed');
  const screenshot = !importErr
    ? ok('screenshots (ImageMagick import)')
    : missing('screenshots (ImageMagick import)', 'ImageMagick import is not installed (apt-get install imagemagick)');
  let accessibility: PermissionCheck;
  if (!env.DBUS_SESSION_BUS_ADDRESS)
    accessibility = missing('AT-SPI tree, find, press, text', 'DBUS_SESSION_BUS_ADDRESS is not set: no session bus, so no a11y bus');
  else {
    try {
      await probeRegistry();
      accessibility = ok('AT-SPI tree, find, press, text');
    } catch (e) {
      accessibility = missing('AT-SPI tree, find, press, text', `no a11y bus or registry: ${(e as Error).message} (install at-spi2-core)`);
    }
  }
  const permissions = { accessibility, display: displayCheck, input: xdotool, screenRecording: screenshot };
  for (const [name, p] of Object.entries(permissions)) if (!p.granted) issues.push(`${name}: ${p.detail}`);
  return { platform: 'linux-atspi', permissions, issues, healthy: issues.length === 0 };
}
