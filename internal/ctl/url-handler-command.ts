import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const DESKTOP_FILE = 'mcpd-url-handler.desktop';

export interface UrlHandlerOptions {
  node: string;
  coreEntry: string;
  configDir: string;
  socket?: string;
  env: NodeJS.ProcessEnv;
  write: (s: string) => void;
}

/** A .desktop Exec argument, quoted per the Desktop Entry spec (reserved characters escaped). */
function quoteArg(a: string): string {
  return `"${a.replace(/([\\"`$])/g, '\\$1')}"`;
}

export function desktopEntry(o: UrlHandlerOptions): string {
  const exec = [o.node, o.coreEntry, 'open', '--config', o.configDir, ...(o.socket ? ['--socket', o.socket] : [])].map(quoteArg).join(' ');
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=mcpd dashboard',
    'Comment=Opens mcpd://start?caller=NAME links: starts the mcpd core if needed and shows that caller',
    `Exec=${exec} --link %u`,
    'MimeType=x-scheme-handler/mcpd;',
    'NoDisplay=true',
    'Terminal=false',
    '',
  ].join('\n');
}

/** Registers mcpd:// with the desktop: an x-scheme-handler .desktop file, made the default with xdg-mime. */
export function installUrlHandler(o: UrlHandlerOptions): number {
  if (process.platform !== 'linux') throw new Error('mcpd url-handler install registers with xdg (Linux desktops) only');
  const dataHome = o.env.XDG_DATA_HOME || join(o.env.HOME || homedir(), '.local/share');
  const dir = join(dataHome, 'applications');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, DESKTOP_FILE);
  writeFileSync(path, desktopEntry(o));
  try {
    execFileSync('xdg-mime', ['default', DESKTOP_FILE, 'x-scheme-handler/mcpd'], { env: o.env, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: Buffer };
    const why = err.code === 'ENOENT' ? 'xdg-mime is not installed (package xdg-utils)' : (err.stderr?.toString().trim() ?? err.message);
    throw new Error(`wrote ${path}, but registering it failed: ${why}`);
  }
  o.write(`registered mcpd:// links: ${path} is the default handler for x-scheme-handler/mcpd\n`);
  return 0;
}
