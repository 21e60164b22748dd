import { closeSync, existsSync, openSync, readSync, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { AuditEntry } from '../contract/audit/audit-entry.js';
import { readAnchor } from '../contract/audit/audit-anchor.js';
import { rotatedFile } from '../contract/audit/audit-files.js';
import { auditOfStore } from '../store/audit-location.js';
import { verifyAudit } from '../contract/audit/audit-verify.js';
import type { Out } from './ctl-command.js';

/**
 * `mcpdctl audit verify`: checks the chain over every file of the store's audit log; exit 0 with what was
 * checked, or 1 naming the first altered, removed or reordered line (docs/audit.md).
 */
export function auditVerifyCommand(configDir: string, out: Out): number {
  const { file, settings } = auditOfStore(configDir);
  if (!existsSync(file) && !existsSync(rotatedFile(file, 1))) {
    out.warn(`mcpdctl: there is no audit log at ${file}${whyNoLog(file, settings.enabled)}\n`);
    return 1;
  }
  const v = verifyAudit(file);
  if (out.json) {
    out.write(`${JSON.stringify({ file, ...v })}\n`);
    return v.ok ? 0 : 1;
  }
  if (!v.ok) {
    out.warn(`mcpdctl: audit log ${file} fails verification: ${v.problem}\n`);
    return 1;
  }
  const files = `${v.files} ${v.files === 1 ? 'file' : 'files'}`;
  const from = v.continuesFrom !== undefined ? ` (from entry ${v.continuesFrom}: older files were rotated away)` : '';
  out.write(`ok: ${v.entries} ${v.entries === 1 ? 'entry' : 'entries'} in ${files} verified${from}: ${file}\n`);
  return 0;
}

/** Why a log is missing, where that can be told: turned off, or deleted (its anchor says entries were written). */
function whyNoLog(file: string, enabled: boolean): string {
  if (!enabled) return ' (runtime.yaml turns it off: audit.enabled is false)';
  let anchor;
  try {
    anchor = readAnchor(file);
  } catch {
    return ''; // an anchor that is no anchor says nothing about the log
  }
  return anchor && anchor.seq > 0 ? ` (it was deleted: its anchor says entries ${anchor.firstSeq} to ${anchor.seq} were written)` : '';
}

export interface TailFlags {
  caller?: string;
  lines: number;
}

/**
 * `mcpdctl audit tail`: the log's last entries, then each new one as it is written, until Ctrl-C. Follows
 * the file across rotations (what was left unread in the rotated file is read first).
 */
export async function auditTailCommand(configDir: string, flags: TailFlags, out: Out): Promise<number> {
  const { file } = auditOfStore(configDir);
  if (!existsSync(dirname(file))) throw new Error(`there is no audit log at ${file} yet: a core on this store writes it once it runs`);
  const show = (line: string) => {
    const e = parseEntry(line);
    if (flags.caller !== undefined && (e?.kind !== 'call' || e.caller !== flags.caller)) return;
    out.write(out.json || !e ? `${line}\n` : `${formatEntry(e)}\n`);
  };
  const reader = new FileFollower(file, show);
  reader.backlog(flags.lines, (line) => flags.caller === undefined || entryCaller(line) === flags.caller);
  const watcher = watch(dirname(file), (_event, name) => {
    if (name === null || name.startsWith(basename(file))) reader.readNew();
  });
  // A change between the backlog and the watch's start is read now.
  reader.readNew();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  watcher.close();
  return 0;
}

function parseEntry(line: string): AuditEntry | undefined {
  try {
    return JSON.parse(line) as AuditEntry;
  } catch {
    return undefined;
  }
}

function entryCaller(line: string): string | undefined {
  const e = parseEntry(line);
  return e?.kind === 'call' ? e.caller : undefined;
}

/** One line for a person: time, caller, face, method, target, outcome, duration. */
function formatEntry(e: AuditEntry): string {
  if (e.kind === 'gap') return `${e.time}  GAP  ${e.lost} entries lost between ${e.from} and ${e.to}: ${e.reason}`;
  const outcome = e.outcome === 'denied' && e.rule ? `denied by ${e.rule}` : e.outcome;
  const why = e.outcome !== 'ok' && e.message ? ` (${e.message})` : '';
  const client = e.client ? `/${e.client}` : '';
  return `${e.time}  ${e.caller} via ${e.face}${client}  ${e.method} ${e.target ?? ''}  ${outcome}${why}  ${e.durationMs} ms`;
}

/** Reads a growing file from where it left off; a new file under the same name (rotation) from its start. */
class FileFollower {
  private offset = 0;
  private ino = -1;
  private partial = '';

  constructor(
    private readonly file: string,
    private readonly line: (text: string) => void,
  ) {}

  /** The last `n` lines that `keep` accepts; reading goes on after them. */
  backlog(n: number, keep: (line: string) => boolean): void {
    const s = statOf(this.file);
    if (!s) return;
    const lines = readRange(this.file, 0, s.size).split('\n');
    const rest = lines.pop() ?? '';
    for (const l of lines.filter((x) => x !== '' && keep(x)).slice(-n)) this.line(l);
    this.ino = s.ino;
    this.offset = s.size - Buffer.byteLength(rest);
  }

  readNew(): void {
    const s = statOf(this.file);
    if (!s) return;
    if (s.ino !== this.ino) {
      // Rotated: the rest of the file we were reading is now `.1`.
      const old = statOf(rotatedFile(this.file, 1));
      if (old && old.ino === this.ino && old.size > this.offset) this.take(readRange(rotatedFile(this.file, 1), this.offset, old.size));
      this.partial = '';
      this.ino = s.ino;
      this.offset = 0;
    }
    if (s.size < this.offset) this.offset = 0; // truncated: start over
    if (s.size === this.offset) return;
    this.take(readRange(this.file, this.offset, s.size));
    this.offset = s.size;
  }

  private take(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const l of lines) if (l !== '') this.line(l);
  }
}

function statOf(file: string): { size: number; ino: number } | undefined {
  try {
    const s = statSync(file);
    return { size: s.size, ino: s.ino };
  } catch {
    return undefined;
  }
}

function readRange(file: string, from: number, to: number): string {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(to - from);
    readSync(fd, b, 0, b.length, from);
    return b.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
