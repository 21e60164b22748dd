import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOGIN_CODE_TTL_MS } from './login-code.js';

/**
 * What `mcpd open` hands the browser instead of a login link: a file in the core's private (0700) state
 * directory, itself 0600, that sends the browser on to the single-use link. A browser's command line is
 * readable by every local user; a path to a file only its owner can read is worth nothing to them. The core
 * deletes the file when it redeems the code (the file is named for the code's nonce).
 */
const PREFIX = 'open-';

function loginPagePath(stateDir: string, nonce: string): string {
  return join(stateDir, `${PREFIX}${nonce}.html`);
}

function attr(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

/** Writes the page for `link` (whose code has `nonce`) and returns its file:// URL; stale pages go first. */
export function writeLoginPage(stateDir: string, nonce: string, link: string, now = Date.now()): string {
  removeStaleLoginPages(stateDir, now);
  const path = loginPagePath(stateDir, nonce);
  const a = attr(link);
  const html =
    '<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n' +
    `<meta http-equiv="refresh" content="0;url=${a}">\n<title>mcpd</title>\n` +
    `<p><a href="${a}">Open the mcpd dashboard</a> (this link works once, for a minute).</p>\n`;
  // 'wx': never through a file (or link) someone else placed; 0600: only this user's browser reads it.
  writeFileSync(path, html, { mode: 0o600, flag: 'wx' });
  return pathToFileURL(path).href;
}

/** The core redeemed the code: its page has served its purpose. */
export function removeLoginPage(stateDir: string, nonce: string): void {
  rmSync(loginPagePath(stateDir, nonce), { force: true });
}

/** Pages whose code has expired unused (the browser never opened them). */
function removeStaleLoginPages(stateDir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(stateDir).filter((n) => n.startsWith(PREFIX) && n.endsWith('.html'));
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(stateDir, n);
    try {
      if (statSync(p).mtimeMs + LOGIN_CODE_TTL_MS < now) rmSync(p, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}
