import { existsSync, lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { foreignControl } from '../shared/file-trust.js';
import { isJsonObject } from '../shared/json.js';
import { stateDirFor } from './state-dir.js';

/** The running core of a store, as it recorded itself in the store's state directory. */
export interface CoreRecord {
  pid: number;
  socket: string;
}

const FILE = 'core.json';

/**
 * Written by the core once it serves (0600, atomically), removed at stop. It lets every client of the
 * store find that core whatever environment it was started with (Codex strips XDG_RUNTIME_DIR; a
 * runtime.yaml `socket:` is invisible to a gateway), and lets a second core name the first.
 */
export function writeCoreRecord(stateDir: string, rec: CoreRecord): void {
  const file = join(stateDir, FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(rec)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** Removes the record when it is this process's own (a later core may have replaced it). */
export function removeCoreRecord(stateDir: string, pid = process.pid): void {
  if (readCoreRecord(stateDir)?.pid !== pid) return;
  try {
    unlinkSync(join(stateDir, FILE));
  } catch {
    // Already gone (a user cleaned the state directory): nothing left to remove.
  }
}

/**
 * The record, when it is a regular file only this user controls and names a process of this user that
 * is alive and a socket that exists; else undefined (a stale record after a SIGKILL, or a planted one).
 */
export function readCoreRecord(stateDir: string): CoreRecord | undefined {
  const file = join(stateDir, FILE);
  let rec: unknown;
  try {
    const st = lstatSync(file);
    if (!st.isFile() || foreignControl(st)) return undefined;
    rec = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // Missing or half-written: no core recorded itself.
    return undefined;
  }
  if (!isJsonObject(rec) || typeof rec.pid !== 'number' || typeof rec.socket !== 'string') return undefined;
  if (!ownProcessAlive(rec.pid) || !existsSync(rec.socket)) return undefined;
  return { pid: rec.pid, socket: rec.socket };
}

/** The socket the store's running core serves, if one recorded itself. */
export function recordedSocket(configDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return readCoreRecord(stateDirFor(configDir, env))?.socket;
}

function ownProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH (gone) or EPERM (another user's process reusing the pid): not our core.
    return false;
  }
}
