import { spawn } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, readFileSync } from 'node:fs';
import { assertPrivateDir, openOwnAppendFile } from '../shared/file-trust.js';
import { basename, dirname, join } from 'node:path';
import { CORE_NODE_FLAGS } from './core-node-flags.js';

export interface AutostartOptions {
  /** Path to the mcpd entry script. */
  coreEntry: string;
  socket: string;
  configDir?: string;
  /** Where the core's stdout/stderr go; defaults beside the socket (coreLogFile). */
  logFile?: string;
}

/** How a core refused because another serves or is starting on its socket or store begins its message. */
const ANOTHER_CORE = 'mcpd: another mcpd ';

/** A core this process started. */
export interface StartedCore {
  pid: number | undefined;
  logFile: string;
  /**
   * Settles with the core's own first error (what it wrote before exiting) when it exits with a failure;
   * stays pending while it runs or when it stops normally.
   */
  failed: Promise<string>;
  /** Settles when the core exited because another core of the store serves or is starting (gateways racing). */
  lostRace: Promise<void>;
}

/**
 * Starts a core as a daemon: detached in its own session so it outlives this gateway, and with
 * its output in a log file (the gateway's stdout belongs to MCP).
 */
export function startCoreDaemon(o: AutostartOptions): StartedCore {
  const logFile = o.logFile ?? coreLogFile(o.socket);
  mkdirSync(dirname(logFile), { recursive: true, mode: 0o700 });
  // A log in a directory another user controls could be a link to any file we can write.
  assertPrivateDir(dirname(logFile), 'the core log directory', 'use a --socket in a directory only you own and can write');
  const fd = openOwnAppendFile(logFile);
  // This start's own lines begin here: the log keeps earlier cores' output.
  const from = fstatSync(fd).size;
  const args = [...CORE_NODE_FLAGS, o.coreEntry, '--socket', o.socket];
  if (o.configDir) args.push('--config', o.configDir);
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd], env: process.env });
  closeSync(fd);
  child.unref();
  let lost = (): void => {};
  const lostRace = new Promise<void>((resolve) => (lost = resolve));
  const failed = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      if (code === 0) return;
      const first = firstError(logFile, from);
      // Refused because another core serves or is starting (gateways racing to start one): that core is
      // the one coming, so this is no failure to report.
      if (first?.startsWith(ANOTHER_CORE)) return lost();
      resolve(first ?? `it exited with ${signal ?? `code ${code}`}`);
    });
  });
  return { pid: child.pid, logFile, failed, lostRace };
}

/**
 * `mcpd.log` beside `control.sock`; `control-<hash>.log` beside a store's own `control-<hash>.sock`: cores
 * of several stores in one directory each keep a log of their own (a failed start is read from it).
 */
function coreLogFile(socket: string): string {
  const own = /^(control-[0-9a-f]+)\.sock$/.exec(basename(socket));
  return join(dirname(socket), own ? `${own[1]}.log` : 'mcpd.log');
}

/** The core's own account of a failed start: its `mcpd: …` message (with the lines that detail it), else its first error entry. */
function firstError(logFile: string, from: number): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync(logFile).subarray(from).toString('utf8').split('\n');
  } catch {
    // The log went away (a cleaned temp dir): the exit code is all there is to tell.
    return undefined;
  }
  const at = lines.findIndex((l) => l.startsWith('mcpd: '));
  if (at >= 0) {
    const detail = lines.slice(at + 1, at + 4).filter((l) => l.trim() !== '' && !l.startsWith('{'));
    return [lines[at] as string, ...detail.map((l) => l.trim())].join(' ');
  }
  return lines.find((l) => l.includes('"level":"error"'));
}
