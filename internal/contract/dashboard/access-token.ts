import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `mcpd open` needs to reach the dashboard of the core on a socket. */
export interface DashboardRecord {
  url: string;
  token: string;
  pid: number;
}

/** One browser login handed to the next core: the hash of the page's per-login value and when the login ends. */
export interface HandedLogin {
  sha256: string;
  expires: number;
}

/** A graceful stop leaves this for the next core: each open page's login may be renewed there once. */
interface Handoff {
  logins: HandedLogin[];
  until: number;
}

const RECORD = 'dashboard.json';
const HANDOFF = 'dashboard-handoff.json';
/** How long after a graceful stop an open page may trade its login's old value for one of the new core's. */
export const HANDOFF_WINDOW_MS = 10 * 60_000;

export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Constant-time, and length-independent (both sides hashed). */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(token).digest());
}

/** The core's private state directory (the control socket's, 0700): created and tightened if needed. */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (statSync(dir).uid === process.getuid?.()) chmodSync(dir, 0o700);
}

function writePrivate(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

export function writeDashboardRecord(stateDir: string, r: DashboardRecord): void {
  ensurePrivateDir(stateDir);
  writePrivate(join(stateDir, RECORD), `${JSON.stringify(r)}\n`);
}

/** The record of the core serving this state directory; the error says what to do when there is none. */
export function readDashboardRecord(stateDir: string): DashboardRecord {
  const path = join(stateDir, RECORD);
  let r: Partial<DashboardRecord>;
  try {
    r = JSON.parse(readFileSync(path, 'utf8')) as Partial<DashboardRecord>;
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing
        ? `no dashboard is published in ${stateDir}: no core runs on this socket, or its runtime.yaml metricsAddress is empty (the dashboard shares that listener)`
        : `${path} is unreadable (${(e as Error).message}); restart the core to rewrite it`,
    );
  }
  if (typeof r.url !== 'string' || typeof r.token !== 'string' || typeof r.pid !== 'number') {
    throw new Error(`${path} lacks url/token/pid; restart the core to rewrite it`);
  }
  return r as DashboardRecord;
}

export function removeDashboardRecord(stateDir: string, token: string): void {
  try {
    const r = readDashboardRecord(stateDir);
    // Another core may own the directory by now; only remove our own record.
    if (r.token === token) rmSync(join(stateDir, RECORD), { force: true });
  } catch {
    // nothing to remove
  }
}

export function writeHandoff(stateDir: string, logins: HandedLogin[], now = Date.now()): void {
  const h: Handoff = { logins, until: now + HANDOFF_WINDOW_MS };
  writePrivate(join(stateDir, HANDOFF), `${JSON.stringify(h)}\n`);
}

function handedLogin(l: unknown): l is HandedLogin {
  const x = l as Partial<HandedLogin> | null;
  return typeof x?.sha256 === 'string' && typeof x.expires === 'number';
}

/** Reads and deletes the predecessor's handoff; returns its logins while the window is open. */
export function takeHandoff(stateDir: string, now = Date.now()): { logins: HandedLogin[]; until: number } | undefined {
  const path = join(stateDir, HANDOFF);
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Partial<Handoff>;
    rmSync(path, { force: true });
    if (!Array.isArray(h.logins) || typeof h.until !== 'number' || h.until < now) return undefined;
    return { logins: h.logins.filter(handedLogin), until: h.until };
  } catch {
    return undefined;
  }
}
