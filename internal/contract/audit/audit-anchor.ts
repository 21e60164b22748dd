import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * Where the log's chain must end and start, kept by the writer beside the log (docs/audit.md, "The anchor"):
 * what a hash chain cannot show by itself — lines cut from the end of the newest file, the oldest files
 * deleted — shows against it.
 */
export interface AuditAnchor {
  /** The last entry written (0 before the first). */
  seq: number;
  /** Its hash (GENESIS before the first). */
  hash: string;
  /** When it was written (ISO 8601). */
  time: string;
  /** The first entry of the oldest file kept: rotation moves it on when it deletes a file. */
  firstSeq: number;
}

/** The anchor beside `file`: `audit.jsonl.anchor` (no rotated file's name: those end in a number). */
export function anchorFile(file: string): string {
  return `${file}.anchor`;
}

/** The anchor as written: one JSON line. */
export function anchorText(a: AuditAnchor): string {
  return `${JSON.stringify({ firstSeq: a.firstSeq, hash: a.hash, seq: a.seq, time: a.time })}\n`;
}

/** Parses an anchor's text; undefined when it is not one (said by the caller, with the file). */
export function parseAnchor(text: string): AuditAnchor | undefined {
  try {
    const v = JSON.parse(text) as Partial<AuditAnchor>;
    const count = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;
    if (count(v.seq) && count(v.firstSeq) && typeof v.hash === 'string' && typeof v.time === 'string') return v as AuditAnchor;
  } catch {
    // not JSON: undefined below
  }
  return undefined;
}

/** The anchor of the log at `file`, or undefined when there is none; a file that is no anchor throws, naming it. */
export function readAnchor(file: string): AuditAnchor | undefined {
  const path = anchorFile(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const a = parseAnchor(text);
  if (!a)
    throw new Error(`${basename(path)} is not an audit anchor (altered?): it should be one JSON line with seq, hash, time and firstSeq`);
  return a;
}

/** The ends of the chain as found on disk. */
export interface ChainEnds {
  /** The oldest kept entry's seq. */
  first: number;
  /** The newest entry. */
  last: { seq: number; hash: string };
  /** The hash of the entry `seq`, where the caller can tell (verify reads every line; the writer only the ends). */
  hashOf?(seq: number): string | undefined;
}

/** What is missing from a chain, measured against its anchor. */
export interface AnchorMismatch {
  where: 'start' | 'end';
  /** How many entries are gone. */
  lost: number;
  problem: string;
}

const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;
const span = (a: number, b: number) => (a === b ? `seq ${a}` : `seq ${a} to ${b}`);

/**
 * Whether the chain on disk reaches the anchor's last entry and starts where it says. A log that runs on
 * past its anchor is fine (the writer appends, then moves the anchor: a stop between leaves it behind), as
 * long as the entry it names is still there with the same hash.
 */
export function anchorMismatch(anchor: AuditAnchor, ends: ChainEnds): AnchorMismatch | undefined {
  if (ends.first > anchor.firstSeq) {
    const lost = ends.first - anchor.firstSeq;
    return {
      where: 'start',
      lost,
      problem: `${entries(lost)} (${span(anchor.firstSeq, ends.first - 1)}) removed from the start: the log begins at entry ${ends.first}, its anchor says ${anchor.firstSeq} (older files deleted)`,
    };
  }
  if (anchor.seq === 0) return undefined;
  if (ends.last.seq < anchor.seq) {
    const lost = anchor.seq - ends.last.seq;
    return {
      where: 'end',
      lost,
      problem: `${entries(lost)} (${span(ends.last.seq + 1, anchor.seq)}) removed from the end: the log ends at entry ${ends.last.seq}, its anchor says ${anchor.seq}`,
    };
  }
  const hash = ends.last.seq === anchor.seq ? ends.last.hash : ends.hashOf?.(anchor.seq);
  if (hash !== undefined && hash !== anchor.hash) {
    return {
      where: 'end',
      lost: 0,
      problem: `entry ${anchor.seq} is not the one its anchor names (another hash): the log was rewritten from there on`,
    };
  }
  return undefined;
}
