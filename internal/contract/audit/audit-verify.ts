import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { anchorFile, anchorMismatch, readAnchor, type AuditAnchor } from './audit-anchor.js';
import { GENESIS, entryHash } from './audit-chain.js';
import { chainFiles } from './audit-files.js';

/** What `mcpdctl audit verify` found. */
export type Verdict =
  | {
      ok: true;
      entries: number;
      files: number;
      /** The oldest kept file continues a chain whose start was rotated away (its first `seq`). */
      continuesFrom?: number;
      /** The anchor the log's ends were checked against. */
      anchor: AuditAnchor;
    }
  | { ok: false; entries: number; files: number; file: string; line: number; problem: string };

interface Line {
  file: string;
  line: number;
  text: string;
  /** Parsed, when the line is a JSON object. */
  entry?: { hash?: unknown; prev?: unknown; seq?: unknown };
}

function linesOf(file: string): Line[] {
  const text = readFileSync(file, 'utf8');
  const raw = text.split('\n');
  if (raw.at(-1) === '') raw.pop();
  return raw.map((t, i) => ({ file, line: i + 1, text: t, entry: parse(t) }));
}

function parse(text: string): Line['entry'] {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Line['entry']) : undefined;
  } catch {
    return undefined;
  }
}

const at = (l: Line) => `${basename(l.file)} line ${l.line}`;

/**
 * Checks the hash chain over every file of the log (rotated ones first) and names the first line that was
 * altered (its content no longer matches its hash), removed (a line's `prev` is no hash in the log) or
 * reordered (its `prev` is the hash of a line that comes after it); then the chain's ends against the
 * anchor beside the log: entries cut from the end, or the oldest files deleted.
 */
export function verifyAudit(file: string): Verdict {
  // The anchor first: a core writing meanwhile appends before it moves the anchor, so this one is never ahead of what is read next.
  const anchor = readAnchor(file);
  const files = chainFiles(file);
  if (files.length === 0) throw new Error(`there is no audit log at ${file}`);
  const all = files.flatMap(linesOf);
  const where = new Map<string, number>();
  all.forEach((l, i) => typeof l.entry?.hash === 'string' && !where.has(l.entry.hash) && where.set(l.entry.hash, i));
  const fail = (i: number, problem: string): Verdict => {
    const l = all[i] as Line;
    return { ok: false, entries: i, files: files.length, file: l.file, line: l.line, problem };
  };
  // The oldest kept file may be a rotated one whose predecessors were deleted by rotation (`keep`).
  const rotatedStart = files.length > 1 || files[0] !== file;
  let continuesFrom: number | undefined;
  for (let i = 0; i < all.length; i++) {
    const l = all[i] as Line;
    const e = l.entry;
    if (!e) return fail(i, `${at(l)} is not a JSON entry (altered or cut short)`);
    if (typeof e.hash !== 'string' || entryHash(e as never) !== e.hash) {
      return fail(i, `${at(l)} was altered: its content does not match its hash`);
    }
    const before = all[i - 1];
    if (!before) {
      if (e.prev === GENESIS) continue;
      if (rotatedStart && typeof e.seq === 'number') {
        continuesFrom = e.seq;
        continue;
      }
      return fail(i, `${at(l)} is not the start of the chain: the entries before it (seq 1 to ${String(Number(e.seq) - 1)}) were removed`);
    }
    if (e.prev === before.entry?.hash) continue;
    const j = typeof e.prev === 'string' ? where.get(e.prev) : undefined;
    if (e.prev === GENESIS) return fail(i, `${at(l)} starts a new chain after ${at(before)}: the log was replaced from here on`);
    if (j !== undefined && j > i) return fail(i, `${at(l)} is out of order: it belongs after ${at(all[j] as Line)} (lines reordered)`);
    if (j !== undefined)
      return fail(i, `${at(l)} belongs after ${at(all[j] as Line)}, not after ${at(before)} (lines reordered or duplicated)`);
    const lost = typeof e.seq === 'number' && typeof before.entry?.seq === 'number' ? e.seq - before.entry.seq - 1 : undefined;
    const count = lost !== undefined && lost > 0 ? `${lost} ${lost === 1 ? 'entry was' : 'entries were'}` : 'entries were';
    return fail(i, `${at(l)}: ${count} removed between ${at(before)} and it (its prev is no hash in the log)`);
  }
  const ends = checkEnds(file, all, anchor);
  if (ends) return { ok: false, entries: all.length, files: files.length, ...ends };
  return {
    ok: true,
    entries: all.length,
    files: files.length,
    anchor: anchor as AuditAnchor,
    ...(continuesFrom !== undefined ? { continuesFrom } : {}),
  };
}

/** The chain's ends against the anchor (every line already checked): where it is wrong, or undefined. */
function checkEnds(
  file: string,
  all: Line[],
  anchor: AuditAnchor | undefined,
): { file: string; line: number; problem: string } | undefined {
  const first = all[0];
  const last = all.at(-1);
  const lastAt = last ? { file: last.file, line: last.line } : { file, line: 0 };
  if (!anchor) {
    const name = basename(anchorFile(file));
    return {
      ...lastAt,
      problem: `there is no anchor beside it (${name}), so entries cut from its end would not show: a core writes the anchor with each batch of entries; it was deleted, or no core has written to this log since mcpd began to keep one`,
    };
  }
  const seqOf = (l: Line | undefined) => l?.entry?.seq as number | undefined;
  const hashes = new Map(all.map((l) => [seqOf(l), l.entry?.hash as string]));
  const m = anchorMismatch(anchor, {
    first: seqOf(first) ?? anchor.firstSeq,
    last: last ? { seq: seqOf(last) as number, hash: last.entry?.hash as string } : { seq: anchor.firstSeq - 1, hash: GENESIS },
    hashOf: (seq) => hashes.get(seq),
  });
  if (!m) return undefined;
  if (m.where === 'start' && first) return { file: first.file, line: first.line, problem: `${m.problem} (its first line: ${at(first)})` };
  return { ...lastAt, problem: last ? `${m.problem} (its last line: ${at(last)})` : m.problem };
}
