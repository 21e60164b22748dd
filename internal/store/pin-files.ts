import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyPins, type ServerPins } from '../contract/model/tool-pins.js';
import type { PinArea } from '../contract/model/item-pins.js';

/**
 * Tool pins on disk: `<state dir>/pins/<server>.json`, one file per server name (0600, folder 0700).
 * The core writes what it pins on first sight and what it withholds; `mcpdctl pins approve` moves a
 * withheld definition to the approved ones, and the core, watching the folder, applies it. Prompts,
 * resources and templates (item-pins.ts) have a folder each inside it: `pins/<area>/<server>.json`.
 */
export const pinsDir = (stateDir: string, area?: PinArea): string => (area ? join(stateDir, 'pins', area) : join(stateDir, 'pins'));
const fileOf = (stateDir: string, server: string, area?: PinArea): string =>
  join(pinsDir(stateDir, area), `${encodeURIComponent(server)}.json`);

export function readPins(stateDir: string, server: string, area?: PinArea): ServerPins {
  try {
    const parsed = JSON.parse(readFileSync(fileOf(stateDir, server, area), 'utf8')) as Partial<ServerPins>;
    return { tools: parsed.tools ?? {}, withheld: parsed.withheld ?? {} };
  } catch {
    // No file yet (nothing pinned), or one that cannot be read: start from nothing — its tools are pinned anew.
    return emptyPins();
  }
}

const digestOf = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/**
 * Written whole through a rename, so a reader never sees half a file. Returns the file's digest
 * (pinFileDigest's), by which the core tells its own writes from approvals made by others.
 */
export function writePins(stateDir: string, server: string, pins: ServerPins, area?: PinArea): string {
  mkdirSync(pinsDir(stateDir, area), { recursive: true, mode: 0o700 });
  const file = fileOf(stateDir, server, area);
  const tmp = `${file}.${process.pid}.tmp`;
  const text = `${JSON.stringify(pins, null, 2)}\n`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
  return digestOf(text);
}

/**
 * The digest of a server's pin file as it is now ('' when there is none), without parsing it: the file
 * holds every definition ever pinned, and a folder watch event comes with each write.
 */
export function pinFileDigest(stateDir: string, server: string, area?: PinArea): string {
  try {
    return digestOf(readFileSync(fileOf(stateDir, server, area)));
  } catch {
    return '';
  }
}

/** Server names with a pin file. */
export function pinnedServers(stateDir: string, area?: PinArea): string[] {
  try {
    return readdirSync(pinsDir(stateDir, area))
      .filter((f) => f.endsWith('.json'))
      .map((f) => decodeURIComponent(f.slice(0, -5)));
  } catch {
    return [];
  }
}

/** The server whose pin file this is (a name the folder watch reports), or undefined for other files. */
export function serverOfPinFile(file: string): string | undefined {
  return file.endsWith('.json') ? decodeURIComponent(file.slice(0, -5)) : undefined;
}
