import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../internal/contract/audit/audit-entry.js';
import { anchorFile } from '../../internal/contract/audit/audit-anchor.js';
import { chainFiles } from '../../internal/contract/audit/audit-files.js';
import { coreWorld } from '../support/core-world.js';
import { TestWorld } from '../support/core-process.js';
import { MCPDCTL } from '../support/paths.js';
import { waitFor } from '../support/procs.js';
import { everythingServer, profile } from '../support/profiles.js';

const run = promisify(execFile);
const SECRET = 'secret-arg-5150';

// Generous: the first test spawns mcpdctl ten times, which a loaded machine makes slow.
describe('the audit log: real calls through real faces, then mcpdctl audit verify and tail', { timeout: 180_000 }, () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(everythingServer('ev')),
    'callers.yaml': 'callers:\n  alice: default\n  bob: default\n',
    // Small files: the calls below fill three, so tampering across a rotation can be tried.
    'runtime.yaml': 'metricsAddress: ""\naudit: { maxBytes: 4096, keep: 5 }\n',
  });
  const file = () => join(world.configDir, '.mcpd-state', 'audit.jsonl');
  const lines = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean);
  const total = () => chainFiles(file()).reduce((n, f) => n + lines(f).length, 0);
  const ctl = (...args: string[]) => run(process.execPath, [MCPDCTL, '--config', world.configDir, ...args], { env: world.env() });
  const verify = () =>
    ctl('audit', 'verify').then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
    );
  /** Runs `check` with one file changed by `edit`, then puts it back. */
  const tampered = async (f: string, edit: (ls: string[]) => string[]) => {
    const before = readFileSync(f, 'utf8');
    writeFileSync(f, `${edit(before.split('\n').filter(Boolean)).join('\n')}\n`);
    try {
      return await verify();
    } finally {
      writeFileSync(f, before);
    }
  };

  it('records every call over the MCP gateway (Session) and gRPC (mcpdctl call), chained across rotated files', async () => {
    const alice = await world.gateway('alice');
    for (let i = 0; i < 12; i++) await alice.callTool({ name: 'ev__echo', arguments: { message: `${SECRET}-${i}` } });
    await alice.callTool({ name: 'ev__no-such-tool', arguments: {} }).catch(() => {});
    for (let i = 0; i < 10; i++) await ctl('call', 'bob', 'ev__get-sum', '--args', JSON.stringify({ a: i, b: 2 }));
    await waitFor('23 entries on disk', () => total() === 23);
    const files = chainFiles(file());
    expect(files.length).toBeGreaterThanOrEqual(3);
    const all = files.flatMap(lines).map((l) => JSON.parse(l) as AuditEntry);
    expect(all[0]).toMatchObject({
      kind: 'call',
      seq: 1,
      caller: 'alice',
      face: 'session',
      method: 'tools/call',
      target: 'ev__echo',
      outcome: 'ok',
    });
    expect(all[0]?.kind === 'call' && all[0].argsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(all[12]).toMatchObject({ target: 'ev__no-such-tool', outcome: 'error', message: expect.stringMatching(/ev__no-such-tool/) });
    expect(all[13]).toMatchObject({ caller: 'bob', face: 'grpc', target: 'ev__get-sum', outcome: 'ok' });
    expect(files.map((f) => readFileSync(f, 'utf8')).join('')).not.toContain(SECRET);

    const ok = await verify();
    expect(ok).toMatchObject({ code: 0, out: `ok: 23 entries in ${files.length} files verified: ${file()}\n` });
  });

  it('names the first altered, removed or reordered line, in the current file and across a rotation', async () => {
    const current = file();
    const older = `${current}.1`;
    const olderLines = lines(older).length;
    const fails = (problem: string) => ({ code: 1, err: `mcpdctl: audit log ${current} fails verification: ${problem}\n` });

    expect(
      await tampered(current, (ls) => ls.map((l, i) => (i === 1 ? l.replace('"outcome":"ok"', '"outcome":"error"') : l))),
    ).toMatchObject(fails('audit.jsonl line 2 was altered: its content does not match its hash'));
    expect(await tampered(current, (ls) => ls.filter((_, i) => i !== 2))).toMatchObject(
      fails('audit.jsonl line 3: 1 entry was removed between audit.jsonl line 2 and it (its prev is no hash in the log)'),
    );
    expect(await tampered(current, (ls) => [ls[0] as string, ls[2] as string, ls[1] as string, ...ls.slice(3)])).toMatchObject(
      fails('audit.jsonl line 2 is out of order: it belongs after audit.jsonl line 3 (lines reordered)'),
    );
    // The last line of the rotated file goes: the current file's first line no longer follows anything.
    expect(await tampered(older, (ls) => ls.slice(0, -1))).toMatchObject(
      fails(`audit.jsonl line 1: 1 entry was removed between audit.jsonl.1 line ${olderLines - 1} and it (its prev is no hash in the log)`),
    );
    expect(await tampered(older, (ls) => ls.map((l, i) => (i === 0 ? l.replace('"caller":"alice"', '"caller":"bob"') : l)))).toMatchObject(
      fails('audit.jsonl.1 line 1 was altered: its content does not match its hash'),
    );
    expect(await verify()).toMatchObject({ code: 0 });
  });

  it('names entries cut from the end of the newest file, and the oldest file deleted, against the anchor', async () => {
    const current = file();
    const all = chainFiles(current);
    const last = lines(current).length;
    const fails = (problem: string) => ({ code: 1, err: `mcpdctl: audit log ${current} fails verification: ${problem}\n` });
    // The writer moves the anchor after each append: wait until it names the last entry.
    const anchor = () => JSON.parse(readFileSync(anchorFile(current), 'utf8')) as { seq: number; firstSeq: number };
    await waitFor('the anchor at the last entry', () => anchor().seq === 23);
    expect(statSync(anchorFile(current)).mode & 0o777).toBe(0o600);

    expect(await tampered(current, (ls) => ls.slice(0, -2))).toMatchObject(
      fails(
        `2 entries (seq 22 to 23) removed from the end: the log ends at entry 21, its anchor says 23 (its last line: audit.jsonl line ${last - 2})`,
      ),
    );
    expect(await tampered(current, (ls) => ls.slice(0, -1))).toMatchObject(
      fails(
        `1 entry (seq 23) removed from the end: the log ends at entry 22, its anchor says 23 (its last line: audit.jsonl line ${last - 1})`,
      ),
    );
    // The oldest file goes (as rotation would delete it, but the anchor did not move).
    const oldest = all[0] as string;
    const next = all[1] as string;
    const kept = (JSON.parse(lines(next)[0] as string) as AuditEntry).seq;
    renameSync(oldest, `${oldest}.aside`);
    try {
      expect(await verify()).toMatchObject(
        fails(
          `${kept - 1} entries (seq 1 to ${kept - 1}) removed from the start: the log begins at entry ${kept}, its anchor says 1 (older files deleted) (its first line: ${basename(next)} line 1)`,
        ),
      );
    } finally {
      renameSync(`${oldest}.aside`, oldest);
    }
    expect(anchor().firstSeq).toBe(1);
    // Every file goes: the anchor still says what was written.
    for (const f of all) renameSync(f, `${f}.aside`);
    try {
      expect(await verify()).toMatchObject({
        code: 1,
        err: `mcpdctl: there is no audit log at ${current} (it was deleted: its anchor says entries 1 to 23 were written)\n`,
      });
    } finally {
      for (const f of all) renameSync(`${f}.aside`, f);
    }
    expect(await verify()).toMatchObject({ code: 0 });
  });

  it('mcpdctl audit tail --caller prints that caller’s last entries, then new ones live, until Ctrl-C', async () => {
    const tail = spawn(process.execPath, [MCPDCTL, '--config', world.configDir, 'audit', 'tail', '--caller', 'bob', '--lines', '2'], {
      env: world.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    tail.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((res) => tail.on('exit', (code) => res(code)));
    try {
      await waitFor('the backlog', () => out.split('\n').filter(Boolean).length === 2);
      expect(out).toMatch(/^\S+Z {2}bob via grpc {2}tools\/call ev__get-sum {2}ok {2}\d+ ms\n/);
      const alice = await world.gateway('alice');
      await alice.callTool({ name: 'ev__echo', arguments: { message: 'from alice' } });
      await ctl('call', 'bob', 'ev__get-sum', '--args', '{"a":40,"b":2}');
      await waitFor('a live entry', () => out.split('\n').filter(Boolean).length === 3);
      expect(out).not.toContain('alice');
      tail.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (tail.exitCode === null) tail.kill('SIGKILL');
    }
  });
});

describe('the audit log on a full disk', () => {
  it('lets calls go on while writes fail with ENOSPC, and records the gap in the chain once writing works again', async () => {
    const world = new TestWorld({
      'profiles/default.yaml': profile(everythingServer('ev')),
      'callers.yaml': 'callers:\n  alice: default\n',
      'runtime.yaml': 'metricsAddress: ""\naudit: { file: audit/audit.jsonl }\n',
    });
    try {
      // The log's path is a link we can point at a full device (/dev/full: every write fails with ENOSPC) and back.
      const link = join(world.configDir, 'audit', 'audit.jsonl');
      const real = join(world.configDir, 'audit', 'real.jsonl');
      mkdirSync(join(world.configDir, 'audit'));
      symlinkSync('/dev/full', link);
      await world.startCore();
      const alice = await world.gateway('alice');
      for (let i = 0; i < 3; i++) {
        const r = await alice.callTool({ name: 'ev__echo', arguments: { message: `while full ${i}` } });
        expect(r.isError).toBeFalsy();
      }
      await world.waitForLogLine('the failed write', /writing the audit log failed: ENOSPC/);
      unlinkSync(link);
      symlinkSync(real, link);
      await alice.callTool({ name: 'ev__get-sum', arguments: { a: 1, b: 2 } });
      await waitFor('the entry after the gap', () => {
        try {
          return readFileSync(real, 'utf8').includes('ev__get-sum');
        } catch {
          return false;
        }
      });
      const entries = readFileSync(real, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as AuditEntry);
      const [gap, ...calls] = entries;
      expect(gap).toMatchObject({ kind: 'gap', seq: 1, reason: expect.stringMatching(/^writing the audit log failed: ENOSPC/) });
      // Every call is accounted for: lost in the gap, or written after it.
      expect((gap?.kind === 'gap' ? gap.lost : 0) + calls.length).toBe(4);
      expect(calls.at(-1)).toMatchObject({ kind: 'call', target: 'ev__get-sum', outcome: 'ok' });
      const r = await run(process.execPath, [MCPDCTL, '--config', world.configDir, 'audit', 'verify'], { env: world.env() });
      expect(r.stdout).toBe(`ok: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} in 1 file verified: ${link}\n`);
    } finally {
      await world.cleanup();
    }
  });
});

describe('the audit log and callers.yaml policies', () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(everythingServer('ev')),
    'callers.yaml': [
      'callers:',
      '  alice: default',
      'policies:',
      '  - name: no-secret-echo',
      '    callers: [alice]',
      '    effect: deny',
      '    tools: ["ev__echo"]',
      `    when: 'args.message == "secret"'`,
      '',
    ].join('\n'),
  });

  it('records a real policy refusal as denied, naming the rule', async () => {
    const alice = await world.gateway('alice');
    await expect(alice.callTool({ name: 'ev__echo', arguments: { message: 'secret' } })).rejects.toThrow(/no-secret-echo/);
    await alice.callTool({ name: 'ev__echo', arguments: { message: 'public' } });
    const file = join(world.configDir, '.mcpd-state', 'audit.jsonl');
    await waitFor('both entries', () => {
      try {
        return readFileSync(file, 'utf8').trim().split('\n').length === 2;
      } catch {
        return false;
      }
    });
    const [denied, ok] = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
    expect(denied).toMatchObject({ caller: 'alice', target: 'ev__echo', outcome: 'denied', rule: 'no-secret-echo', durationMs: 0 });
    expect(ok).toMatchObject({ caller: 'alice', target: 'ev__echo', outcome: 'ok' });
  });
});
