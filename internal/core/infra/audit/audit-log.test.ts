import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../contract/audit/audit-entry.js';
import { verifyAudit } from '../../../contract/audit/audit-verify.js';
import { AuditLog, type AuditLogOptions } from './audit-log.js';
import type { AuditRecord } from './audit-record.js';

// The worker as built (the suite's global setup builds dist/): a worker thread runs JavaScript, not these sources.
const BUILT_WORKER = pathToFileURL(resolve('dist/internal/core/infra/audit/audit-worker.js'));

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'audit-log-'));
  dirs.push(d);
  return d;
}

const rec = (n: number): AuditRecord => ({
  kind: 'call',
  startedAt: Date.UTC(2026, 10, 29, 15, 0, 0, n),
  caller: n % 2 ? 'alice' : 'bob',
  face: 'session',
  client: 'c',
  method: 'tools/call',
  target: `fx__t${n}`,
  outcome: 'ok',
  durationMs: 1,
  args: { n, text: 'é'.repeat(n % 10) },
});

function auditLog(file: string, o: Partial<AuditLogOptions> = {}): { log: AuditLog; warnings: string[] } {
  const warnings: string[] = [];
  const log = new AuditLog({
    file,
    arguments: true,
    maxBytes: 1 << 20,
    keep: 3,
    warn: (m) => warnings.push(m),
    workerUrl: BUILT_WORKER,
    ...o,
  });
  return { log, warnings };
}

const entriesOf = (file: string): AuditEntry[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AuditEntry);

/** Collects what a watcher is told, and resolves once it has seen `n` entries. */
function watcher(log: AuditLog): { seen: AuditEntry[]; until: (n: number) => Promise<void>; stop: () => void } {
  const seen: AuditEntry[] = [];
  const waits: { n: number; resolve: () => void }[] = [];
  const stop = log.watch((entries) => {
    seen.push(...entries);
    for (const w of waits.filter((x) => seen.length >= x.n)) w.resolve();
  });
  return { seen, stop, until: (n) => new Promise((r) => (seen.length >= n ? r() : waits.push({ n, resolve: r }))) };
}

describe('the audit log (records written by its worker thread)', () => {
  it('writes every record, in order, chained and anchored, with the arguments kept', async () => {
    const file = join(tmp(), 'state', 'audit.jsonl');
    const { log, warnings } = auditLog(file);
    for (let i = 0; i < 1200; i++) log.record(rec(i));
    await log.close();
    const entries = entriesOf(file);
    expect(entries.map((e) => (e.kind === 'call' ? e.target : e.kind))).toEqual(Array.from({ length: 1200 }, (_, i) => `fx__t${i}`));
    expect(entries[7]).toMatchObject({ caller: 'alice', time: '2026-11-29T15:00:00.007Z', args: { n: 7, text: 'é'.repeat(7) } });
    expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 1200, anchor: { seq: 1200, firstSeq: 1 } });
    expect(warnings).toEqual([]);
    log.record(rec(9999)); // after close: taken no more
    expect(entriesOf(file)).toHaveLength(1200);
  });

  it('tells a watcher the recent entries, then each batch; a second watch after the first ends gets them again, once', async () => {
    const file = join(tmp(), 'audit.jsonl');
    const { log } = auditLog(file);
    const early = watcher(log); // before the worker exists
    for (let i = 0; i < 3; i++) log.record(rec(i));
    await early.until(3);
    early.stop();
    for (let i = 3; i < 5; i++) log.record(rec(i));
    const late = watcher(log);
    await late.until(5);
    log.record(rec(5));
    await late.until(6);
    expect(late.seen.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(early.seen.map((e) => e.seq)).toEqual([1, 2, 3]);
    await log.close();
  });

  it('goes on in the main thread when the worker fails, the records it had not written counted as a gap', async () => {
    const dir = tmp();
    const broken = join(dir, 'broken-worker.mjs');
    writeFileSync(broken, "throw new Error('no audit here');\n");
    const file = join(dir, 'audit.jsonl');
    const warnings: string[] = [];
    let warned = () => {};
    const told = new Promise<void>((r) => (warned = r));
    const { log } = auditLog(file, { workerUrl: pathToFileURL(broken), warn: (m) => (warnings.push(m), warned()) });
    const seen = watcher(log);
    for (let i = 0; i < 4; i++) log.record(rec(i));
    await told;
    // The gap is written with the next batch, by the main thread's writer.
    for (let i = 4; i < 6; i++) log.record(rec(i));
    await seen.until(3);
    await log.close();
    expect(warnings).toEqual([
      expect.stringMatching(/audit log's worker failed: no audit here; the audit log goes on in the core's main thread/),
    ]);
    const entries = entriesOf(file);
    expect(entries[0]).toMatchObject({ kind: 'gap', lost: 4, reason: expect.stringMatching(/no audit here before it confirmed/) });
    expect(entries.slice(1).map((e) => (e.kind === 'call' ? e.target : e.kind))).toEqual(['fx__t4', 'fx__t5']);
    expect(verifyAudit(file)).toMatchObject({ ok: true, entries: 3 });
  });

  it('a worker that dies between batches: the chain goes on unbroken, each record written once or counted in the gap', async () => {
    const dir = tmp();
    const dying = join(dir, 'dying-worker.mjs');
    // The real worker, which this one dies under as its second batch arrives (after the first is handled). Its
    // listener is added after the real one's, which so gets every message.
    writeFileSync(
      dying,
      [
        "import { parentPort } from 'node:worker_threads';",
        `await import(${JSON.stringify(BUILT_WORKER.href)});`,
        'let n = 0;',
        "parentPort.on('message', (m) => { if (m.type === 'records' && ++n === 2) setImmediate(() => { throw new Error('died'); }); });",
      ].join('\n'),
    );
    const file = join(dir, 'audit.jsonl');
    const warnings: string[] = [];
    const { log } = auditLog(file, { workerUrl: pathToFileURL(dying), warn: (m) => warnings.push(m) });
    const seen = watcher(log);
    for (let i = 0; i < 3; i++) log.record(rec(i));
    await seen.until(3); // the first batch, written by the worker
    for (let i = 3; i < 6; i++) log.record(rec(i));
    await seen.until(4); // the worker has died: the rest (and the gap, if it left any) come from the main thread
    for (let i = 6; i < 8; i++) log.record(rec(i));
    await log.close();
    expect(warnings).toEqual([expect.stringMatching(/worker failed: died; the audit log goes on/)]);
    expect(verifyAudit(file)).toMatchObject({ ok: true });
    const entries = entriesOf(file);
    const calls = entries.flatMap((e) => (e.kind === 'call' ? [Number(e.target?.slice(5))] : []));
    const lost = entries.reduce((n, e) => n + (e.kind === 'gap' ? e.lost : 0), 0);
    expect(calls).toEqual([...new Set(calls)].sort((a, b) => a - b));
    expect(calls.slice(0, 3)).toEqual([0, 1, 2]);
    expect(calls.slice(-2)).toEqual([6, 7]);
    expect(calls.length + lost).toBe(8);
  });

  it('starts no worker and writes nothing when nothing was recorded', async () => {
    const file = join(tmp(), 'audit.jsonl');
    const { log, warnings } = auditLog(file, { workerUrl: pathToFileURL('/nonexistent/worker.js') });
    await log.close();
    expect(warnings).toEqual([]);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});
