import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../../contract/audit/audit-entry.js';
import { anchorFile } from '../../../contract/audit/audit-anchor.js';
import { GENESIS } from '../../../contract/audit/audit-chain.js';
import { rotatedFile } from '../../../contract/audit/audit-files.js';
import { verifyAudit } from '../../../contract/audit/audit-verify.js';
import type { AuditRecord } from './audit-record.js';
import { AuditWriter, type AuditWriterOptions } from './audit-writer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'audit-writer-'));
  dirs.push(d);
  return d;
}

const rec = (n: number, caller = 'alice'): AuditRecord => ({
  kind: 'call',
  startedAt: 0,
  caller,
  face: 'grpc',
  client: null,
  method: 'tools/call',
  target: `fx__t${n}`,
  outcome: 'ok',
  durationMs: 1,
  args: { n },
});

const entriesOf = (file: string): AuditEntry[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEntry);

function writer(file: string, o: Partial<AuditWriterOptions> = {}): { w: AuditWriter; warnings: string[] } {
  const warnings: string[] = [];
  const w = new AuditWriter({ file, arguments: false, maxBytes: 1 << 20, keep: 3, warn: (m) => warnings.push(m), ...o });
  return { w, warnings };
}

/** Resolves after the writer's next batch is written. */
const written = (w: AuditWriter) =>
  new Promise<readonly AuditEntry[]>((res) => {
    const off = w.onWritten((e) => (off(), res(e)));
  });

describe('the audit writer', () => {
  it('digests a large batch a slice at a time, letting the event loop run between slices, and still appends it once', async () => {
    const file = join(tmp(), 'state', 'audit.jsonl');
    const { w } = writer(file);
    // A turn counter, and records whose arguments note the turn they were digested in.
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const digestedIn: number[] = [];
    const n = 200;
    const appended = written(w);
    for (let i = 0; i < n; i++) {
      const args = {};
      let seen = false; // the digest may read a value more than once
      const note = () => seen || ((seen = true), digestedIn.push(turn));
      Object.defineProperty(args, 'n', { enumerable: true, get: () => (note(), i) });
      w.record({ ...rec(i), args });
    }
    await w.close();
    ticking = false;
    const batch = await appended;
    expect(batch).toHaveLength(n);
    expect(digestedIn).toHaveLength(n);
    const perTurn = new Map<number, number>();
    for (const t of digestedIn) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(16);
    expect(verifyAudit(file).ok).toBe(true);
  });

  it('continues the chain across a restart: the new first line carries the last hash on disk', async () => {
    const file = join(tmp(), 'state', 'audit.jsonl');
    const first = writer(file).w;
    for (let i = 0; i < 3; i++) first.record(rec(i));
    await first.close();
    const second = writer(file).w;
    second.record(rec(3));
    await second.close();
    const lines = entriesOf(file);
    expect(lines.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(lines[0]?.prev).toBe(GENESIS);
    expect(lines[3]?.prev).toBe(lines[2]?.hash);
    expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 4, files: 1, anchor: { seq: 4, firstSeq: 1 } });
  });

  it('rotates by size, keeps `keep` files, and chains the new file to the old one', async () => {
    const file = join(tmp(), 'audit.jsonl');
    const { w } = writer(file, { maxBytes: 4096, keep: 2 });
    for (let i = 0; i < 60; i++) w.record(rec(i));
    await w.close();
    expect(existsSync(rotatedFile(file, 1)) && existsSync(rotatedFile(file, 2))).toBe(true);
    expect(existsSync(rotatedFile(file, 3))).toBe(false);
    for (const f of [file, rotatedFile(file, 1), rotatedFile(file, 2)]) expect(readFileSync(f).length).toBeLessThanOrEqual(4096);
    const older = entriesOf(rotatedFile(file, 1));
    const current = entriesOf(file);
    expect(current[0]?.prev).toBe(older.at(-1)?.hash);
    expect(current.at(-1)?.seq).toBe(60);
    const v = verifyAudit(file);
    expect(v).toMatchObject({ ok: true, files: 3 });
    // The oldest file kept begins mid-chain: its predecessors were rotated away, and the anchor says where it starts.
    expect(v.ok && v.continuesFrom).toBeGreaterThan(1);
    expect(v.ok && v.anchor).toMatchObject({ seq: 60, hash: current.at(-1)?.hash, firstSeq: v.ok ? v.continuesFrom : -1 });
    expect(statSync(anchorFile(file)).mode & 0o777).toBe(0o600);
  });

  it('on a full disk drops entries without blocking, and writes a gap entry into the chain once the disk is back', async () => {
    const dir = tmp();
    const file = join(dir, 'audit.jsonl');
    const real = join(dir, 'real.jsonl');
    symlinkSync(real, file);
    let failed: () => void = () => {};
    const failure = new Promise<void>((res) => (failed = res));
    const warnings: string[] = [];
    const w = new AuditWriter({
      file,
      arguments: false,
      maxBytes: 1 << 20,
      keep: 3,
      warn: (m) => (warnings.push(m), m.includes('failed') && failed()),
    });
    w.record(rec(0));
    await written(w);
    // The disk fills up (the link now leads to /dev/full: every write fails with ENOSPC).
    unlinkSync(file);
    symlinkSync('/dev/full', file);
    for (let i = 1; i < 4; i++) w.record(rec(i)); // returns at once: nothing waits on the disk
    await failure;
    expect(warnings).toEqual([expect.stringMatching(/^writing the audit log failed: ENOSPC.*calls go on/)]);
    // Space again.
    unlinkSync(file);
    symlinkSync(real, file);
    w.record(rec(4));
    await w.close();
    const lines = entriesOf(real);
    expect(lines.map((e) => (e.kind === 'gap' ? `gap ${e.lost}` : e.target))).toEqual(['fx__t0', 'gap 3', 'fx__t4']);
    expect(lines[1]).toMatchObject({ kind: 'gap', seq: 2, prev: lines[0]?.hash, reason: expect.stringMatching(/ENOSPC/) });
    expect(Date.parse((lines[1] as { from: string }).from)).toBeLessThanOrEqual(Date.parse((lines[1] as { to: string }).to));
    expect(warnings.at(-1)).toBe('the audit log is written again');
    expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 3, files: 1, anchor: { seq: 3, firstSeq: 1 } });
  });

  it('drops what does not fit in its queue, counted, and records the gap with the next batch', async () => {
    const file = join(tmp(), 'audit.jsonl');
    const { w } = writer(file, { capacity: 2 });
    for (let i = 0; i < 5; i++) w.record(rec(i));
    await w.close();
    const lines = entriesOf(file);
    expect(lines.map((e) => (e.kind === 'gap' ? `gap ${e.lost} ${e.reason}` : e.target))).toEqual([
      'gap 3 the audit queue was full',
      'fx__t0',
      'fx__t1',
    ]);
    expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 3 });
  });

  it('leaves what comes during an append to the next flush: a steady trickle of calls is one append per flush, not one per few calls', async () => {
    // Only the writer's timers are fake: its file I/O and its turns (setImmediate) stay real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const file = join(tmp(), 'audit.jsonl');
      const { w } = writer(file);
      const batches: number[][] = [];
      w.onWritten((e) => {
        batches.push(e.map((x) => x.seq));
        if (batches.length === 1) w.record(rec(2)); // arrives while the first drain is still going
      });
      const first = written(w);
      w.record(rec(1));
      vi.advanceTimersByTime(1000); // the flush the first record set
      await first;
      // The first drain ends (its anchor written, the second record handed on) with a flush timer set, or,
      // as before this was fixed, by appending the second record at once.
      while (vi.getTimerCount() === 0 && batches.length < 2) await new Promise((r) => setImmediate(r));
      expect(batches).toEqual([[1]]);
      const second = written(w);
      vi.advanceTimersByTime(1000);
      expect(await second).toMatchObject([{ seq: 2 }]);
      await w.close();
      expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 2 });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the audit anchor', () => {
  const cut = (f: string, n: number) => writeFileSync(f, `${readFileSync(f, 'utf8').trim().split('\n').slice(0, -n).join('\n')}\n`);

  it('catches up with the log by itself once entries stop coming, with no stop to move it', async () => {
    const file = join(tmp(), 'audit.jsonl');
    const { w } = writer(file);
    const anchorSeq = () => (JSON.parse(readFileSync(anchorFile(file), 'utf8')) as { seq: number }).seq;
    for (let i = 0; i < 3; i++) {
      const batch = written(w);
      w.record(rec(i));
      await batch;
    }
    // Moved at most once a second while the batches came: it names the last entry within a few seconds.
    await expect.poll(anchorSeq, { timeout: 15_000, interval: 100 }).toBe(3);
    expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 3, anchor: { seq: 3 } });
    await w.close();
  });

  it('shows lines cut from the end of the newest file; a writer opening the log records the cut as a gap', async () => {
    const file = join(tmp(), 'audit.jsonl');
    const first = writer(file).w;
    for (let i = 0; i < 5; i++) first.record(rec(i));
    await first.close();
    cut(file, 2);
    expect(verifyAudit(file)).toMatchObject({
      ok: false,
      line: 3,
      problem:
        '2 entries (seq 4 to 5) removed from the end: the log ends at entry 3, its anchor says 5 (its last line: audit.jsonl line 3)',
    });
    const { w, warnings } = writer(file);
    w.record(rec(5));
    await w.close();
    expect(entriesOf(file).map((e) => (e.kind === 'gap' ? `gap ${e.lost}: ${e.reason}` : e.seq))).toEqual([
      1,
      2,
      3,
      'gap 2: when a core opened it, the audit log did not match its anchor: 2 entries (seq 4 to 5) removed from the end: the log ends at entry 3, its anchor says 5',
      5,
    ]);
    expect(warnings).toEqual([expect.stringMatching(/^the audit log does not match its anchor: 2 entries/)]);
    expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 5, anchor: { seq: 5 } });
  });

  it('shows the oldest files deleted, and a log with no anchor beside it', async () => {
    const file = join(tmp(), 'audit.jsonl');
    const { w } = writer(file, { maxBytes: 4096, keep: 3 });
    for (let i = 0; i < 40; i++) w.record(rec(i));
    await w.close();
    const firstSeq = (f: string) => entriesOf(f)[0]?.seq;
    const kept = firstSeq(rotatedFile(file, 2));
    const from = firstSeq(rotatedFile(file, 3));
    rmSync(rotatedFile(file, 3));
    expect(verifyAudit(file)).toMatchObject({
      ok: false,
      line: 1,
      problem: `${Number(kept) - Number(from)} entries (seq ${from} to ${Number(kept) - 1}) removed from the start: the log begins at entry ${kept}, its anchor says ${from} (older files deleted) (its first line: audit.jsonl.2 line 1)`,
    });
    rmSync(anchorFile(file));
    expect(verifyAudit(file)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^there is no anchor beside it \(audit\.jsonl\.anchor\)/),
    });
  });
});
