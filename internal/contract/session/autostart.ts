import { spawn } from 'node:child_process';
import { mkdirSync, closeSync } from 'node:fs';
import { assertPrivateDir, openOwnAppendFile } from '../../shared/file-trust.js';
import { dirname, join } from 'node:path';

export interface AutostartOptions {
  /** Path to the mcpd entry script. */
  coreEntry: string;
  socket: string;
  configDir?: string;
  /** Where the core's stdout/stderr go; defaults beside the socket. */
  logFile?: string;
}

/**
 * Starts a core as a daemon: detached in its own session so it outlives this gateway, and with
 * its output in a log file (the gateway's stdout belongs to MCP).
 */
export function startCoreDaemon(o: AutostartOptions): { pid: number | undefined; logFile: string } {
  const logFile = o.logFile ?? join(dirname(o.socket), 'mcpd.log');
  mkdirSync(dirname(logFile), { recursive: true, mode: 0o700 });
  // A log in a directory another user controls could be a link to any file we can write.
  assertPrivateDir(dirname(logFile), 'the core log directory', 'use a --socket in a directory only you own and can write');
  const fd = openOwnAppendFile(logFile);
  const args = [o.coreEntry, '--socket', o.socket];
  if (o.configDir) args.push('--config', o.configDir);
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd], env: process.env });
  closeSync(fd);
  child.unref();
  return { pid: child.pid, logFile };
}
