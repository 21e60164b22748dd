import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParseArgsConfig } from 'node:util';
import { callerFromLink, openCommand } from './open-command.js';
import { installUrlHandler } from './url-handler-command.js';

/** The mcpd entry beside this build (dist/internal/ctl → dist/cmd/mcpd). */
const CORE_ENTRY = fileURLToPath(new URL('../../cmd/mcpd/main.js', import.meta.url));

export const DASHBOARD_OPTIONS = {
  caller: { type: 'string' },
  'print-url': { type: 'boolean' },
  link: { type: 'string' },
  'no-autostart': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

export const DASHBOARD_USAGE = `  mcpd open [--caller NAME] [--print-url] [--no-autostart]
                                          open the dashboard in the browser through a single-use login
                                          link; --print-url only prints the link; starts a core when
                                          none runs
  mcpd url-handler install                register mcpd://start?caller=NAME links with the desktop (xdg)`;

interface DashboardCommandValues {
  caller?: string;
  'print-url'?: boolean;
  link?: string;
  'no-autostart'?: boolean;
}

/** `mcpd open …` and `mcpd url-handler install`; errors are one line on stderr and exit 1 (2 for usage). */
export async function dashboardCommand(
  positionals: string[],
  v: DashboardCommandValues,
  o: { socket: string; configDir: string; usage: string },
): Promise<number> {
  const write = (s: string) => process.stdout.write(s);
  try {
    if (positionals[0] === 'url-handler') {
      if (positionals[1] !== 'install') {
        process.stderr.write(`mcpd url-handler: expected "install"\n\n${o.usage}\n`);
        return 2;
      }
      return installUrlHandler({
        node: process.execPath,
        coreEntry: CORE_ENTRY,
        configDir: resolve(o.configDir),
        socket: o.socket,
        env: process.env,
        write,
      });
    }
    const caller = v.link !== undefined ? callerFromLink(v.link) : v.caller;
    return await openCommand({
      socket: o.socket,
      configDir: resolve(o.configDir),
      coreEntry: CORE_ENTRY,
      caller,
      printOnly: v['print-url'] === true,
      autostart: v['no-autostart'] !== true,
      env: process.env,
      write,
    });
  } catch (e) {
    process.stderr.write(`mcpd ${positionals[0]}: ${(e as Error).message}\n`);
    return 1;
  }
}
