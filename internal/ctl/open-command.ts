import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { readDashboardRecord, type DashboardRecord } from '../contract/dashboard/access-token.js';
import { mintLoginCode } from '../contract/dashboard/login-code.js';
import { writeLoginPage } from '../contract/dashboard/login-page.js';
import { startCoreDaemon } from '../launch/autostart.js';
import { socketIsLive } from '../contract/session/socket-path.js';

export interface OpenOptions {
  socket: string;
  configDir: string;
  /** The mcpd entry script, to start a core when none runs. */
  coreEntry: string;
  caller?: string;
  /** Print the URL, open nothing. */
  printOnly: boolean;
  autostart: boolean;
  env: NodeJS.ProcessEnv;
  write: (s: string) => void;
}

const CALLER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** `mcpd://start?caller=NAME` → NAME (absent caller = the overview). The error says what a good link looks like. */
export function callerFromLink(link: string): string | undefined {
  let u: URL;
  try {
    u = new URL(link);
  } catch {
    throw new Error(`"${link}" is not a URL; mcpd links look like mcpd://start?caller=NAME`);
  }
  if (u.protocol !== 'mcpd:' || u.hostname !== 'start') throw new Error(`"${link}" is not an mcpd link; expected mcpd://start?caller=NAME`);
  const caller = u.searchParams.get('caller') ?? undefined;
  if (caller !== undefined) checkCaller(caller);
  return caller;
}

function checkCaller(caller: string): void {
  if (!CALLER.test(caller)) throw new Error(`caller "${caller}" is not a valid caller name (letters, digits, ".", "_", "-"; at most 128)`);
}

/**
 * A single-use login link, valid for a minute: the browser's command line (which every local user can
 * read) never holds the core's long-lived token, and a link read from it is useless once the browser used it.
 */
export function dashboardUrl(r: DashboardRecord, caller?: string, now = Date.now()): string {
  const page = caller ? `#/caller/${encodeURIComponent(caller)}/tools` : '#/overview';
  return `${r.url}/?login=${mintLoginCode(r.token, now)}${page}`;
}

/** Prints or opens a single-use dashboard login link; starts a core first when none runs (unless told not to). */
export async function openCommand(o: OpenOptions): Promise<number> {
  if (o.caller) checkCaller(o.caller);
  const stateDir = dirname(o.socket);
  if (!(await socketIsLive(o.socket))) {
    if (!o.autostart) throw new Error(`no core runs on ${o.socket}; start one with "mcpd --config DIR" (or drop --no-autostart)`);
    const { logFile } = startCoreDaemon({ coreEntry: o.coreEntry, socket: o.socket, configDir: o.configDir });
    await waitForRecord(stateDir, o.socket, logFile);
  }
  const url = dashboardUrl(readDashboardRecord(stateDir), o.caller);
  if (o.printOnly) {
    o.write(`${url}\n`);
    return 0;
  }
  // The browser gets a private file that leads on to the link, never the link (its argv is public).
  openInBrowser(writeLoginPage(stateDir, loginNonce(url), url), o.env);
  o.write(`opened the mcpd dashboard${o.caller ? ` for caller ${o.caller}` : ''}\n`);
  return 0;
}

/** The nonce of the login code in a link dashboardUrl made (the code is `<nonce>.<expiry>.<mac>`). */
function loginNonce(url: string): string {
  return (new URL(url).searchParams.get('login') ?? '').split('.')[0] ?? '';
}

async function waitForRecord(stateDir: string, socket: string, logFile: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    if (await socketIsLive(socket)) {
      try {
        const r = readDashboardRecord(stateDir);
        if (r.pid > 0) return;
      } catch {
        // the core publishes the record right after its listener is up
      }
    }
    if (Date.now() > until) throw new Error(`the core started for ${socket} did not come up within 30 s; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** $BROWSER when set (the xdg convention), else the platform's opener. The URL is one argument: never a shell. */
function openInBrowser(url: string, env: NodeJS.ProcessEnv): void {
  // $BROWSER may list several commands separated by ':'; the first is used (split() always yields one).
  const [cmd = '', ...args] = env.BROWSER
    ? [env.BROWSER.split(':')[0] ?? '', url]
    : process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url]
        : ['xdg-open', url];
  const child = spawn(cmd, args, { detached: true, stdio: 'ignore', env });
  child.on('error', (e) =>
    process.stderr.write(`mcpd open: cannot run ${cmd} (${e.message}); use --print-url and open the URL yourself\n`),
  );
  child.unref();
}
