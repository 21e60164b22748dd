import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../internal/contract/audit/audit-entry.js';
import { coreWorld } from '../support/core-world.js';
import { ECHO_SERVER, EVERYTHING, MCPDCTL } from '../support/paths.js';
import { pidsWithTag, waitFor } from '../support/procs.js';
import { echoServer, everythingServer, profile, server } from '../support/profiles.js';

const run = promisify(execFile);

interface Ran {
  code: number;
  out: string;
  err: string;
}

describe('mcpdctl restart SERVER: a real core restarts a real stdio server’s instances', () => {
  const world = coreWorld({
    'profiles/default.yaml': profile(
      everythingServer('ev', { idleSeconds: 300 }),
      echoServer('fx', { idleSeconds: 300, drainTimeoutSeconds: 300 }, { FIXTURE_FAULT_TOOLS: '1' }),
      echoServer('short', { idleSeconds: 300, drainTimeoutSeconds: 1 }, { FIXTURE_FAULT_TOOLS: '1', SHORT: '1' }),
    ),
    // No caller uses this profile: nothing ever starts its server.
    'profiles/spare.yaml': profile(server('idle', [process.execPath, EVERYTHING, 'stdio'], { idleSeconds: 300 }, { SPARE: '1' })),
    // Starts until the file FLAG names exists, then exits at once: its replacement fails to start.
    'profiles/flaky.yaml': profile(
      server(
        'flaky',
        ['/bin/sh', '-c', 'test -e "$FLAG" && exit 3; exec "$0" "$1"', process.execPath, ECHO_SERVER],
        {},
        { FLAG: join(tmpdir(), `mcpd-restart-flag-\${MCPD_TEST_TAG}`) },
      ),
    ),
    'callers.yaml': 'callers:\n  alice: default\n  carol: flaky\n',
  });
  const ctl = (...args: string[]): Promise<Ran> =>
    run(process.execPath, [MCPDCTL, '--config', world.configDir, ...args], { env: world.env() }).then(
      (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
    );
  const instancesOf = async (name: string, inProfile = name === 'idle' ? 'spare' : 'default') => {
    const st = await world.calls().status();
    return st.pools.find((p) => p.references.includes(`${inProfile}/${name}`))?.instances ?? [];
  };
  const auditFile = () => join(world.configDir, '.mcpd-state', 'audit.jsonl');
  const audit = (): AuditEntry[] =>
    (existsSync(auditFile()) ? readFileSync(auditFile(), 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEntry);
  const restarts = () => audit().flatMap((e) => (e.kind === 'call' && e.method === 'mcpd/servers/restart' ? [e] : []));
  const echo = async (message: string) => {
    const alice = await world.gateway('alice');
    return alice.callTool({ name: 'ev__echo', arguments: { message } });
  };

  it('replaces the instance: a new pid, the old process gone, calls work after, the audit log records it', async () => {
    expect(await echo('before')).toMatchObject({ content: [{ type: 'text', text: 'Echo: before' }] });
    const [old] = await instancesOf('ev');
    expect(old).toMatchObject({ state: 'ready', pid: expect.any(Number) });

    const r = await ctl('restart', 'ev');
    expect(r).toMatchObject({ code: 0, err: '' });
    const started = /\n {2}started (\S+) pid (\d+) \(ready\)\n/.exec(r.out);
    expect(r.out).toContain(`server default/ev  spec `);
    expect(r.out).toContain(`\n  stopped ${old?.id} pid ${old?.pid} (ready)\n`);
    expect(started, r.out).not.toBeNull();
    const newPid = Number(started?.[2]);
    expect(newPid).not.toBe(old?.pid);

    // The stop was awaited before the answer: the old server process is gone (reaped, not a zombie).
    expect(pidsWithTag(world.tag)).not.toContain(old?.pid);
    expect(await instancesOf('ev')).toMatchObject([{ id: started?.[1], pid: newPid, state: 'ready', startCause: 'restart' }]);
    expect(await echo('after')).toMatchObject({ content: [{ type: 'text', text: 'Echo: after' }] });
    expect((await instancesOf('ev')).map((i) => i.pid)).toEqual([newPid]);

    await waitFor('the restart in the audit log', () => restarts().length === 1);
    expect(restarts()[0]).toMatchObject({ caller: 'operator', face: 'grpc', target: 'ev', outcome: 'ok', argsDigest: null });

    // --instance restarts that one instance (the JSON form says the same as the text).
    const one = await ctl('--json', 'restart', 'ev', '--instance', String(started?.[1]));
    expect(one.code).toBe(0);
    const [pool] = JSON.parse(one.out) as Array<{ stopped: Array<{ id: string; pid: number }>; started: Array<{ pid: number }> }>;
    expect(pool?.stopped).toEqual([expect.objectContaining({ id: started?.[1], pid: newPid })]);
    expect(pool?.started).toEqual([expect.objectContaining({ pid: expect.any(Number) })]);
    expect(pool?.started[0]?.pid).not.toBe(newPid);
  });

  it('an unknown server fails naming the servers that exist; an unknown instance names the running ones', async () => {
    const r = await ctl('restart', 'evv');
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'mcpdctl: NOT_FOUND: no server named "evv" in the running store (did you mean "ev"?); servers: ev, flaky, fx, idle, short\n',
    );
    const bad = await ctl('restart', 'ev', '--instance', 'ev-999');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      /^mcpdctl: NOT_FOUND: server ev has no instance ev-999 \(it may have stopped already\); its instances: ev-\d+\n$/,
    );
    await waitFor('both refusals in the audit log', () => restarts().filter((e) => e.outcome === 'error').length === 2);
    expect(restarts().filter((e) => e.outcome === 'error')).toMatchObject([
      { target: 'evv', message: expect.stringContaining('no server named "evv"') },
      { target: 'ev', message: expect.stringContaining('no instance ev-999') },
    ]);
  });

  it('a server with no instance running has nothing to restart: it says so, starts nothing, exits 0', async () => {
    expect(await instancesOf('idle')).toEqual([]);
    const r = await ctl('restart', 'spare/idle');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(
      /^server spare\/idle {2}spec [0-9a-f]{12}: no instance running, nothing to restart \(it starts on its next call\)\n$/,
    );
    expect(await instancesOf('idle')).toEqual([]);
  });

  it('a call in flight on the instance finishes before it stops (the drain); the restart answers after it', async () => {
    const alice = await world.gateway('alice');
    await alice.callTool({ name: 'fx__echo', arguments: { text: 'warm' } });
    const [old] = await instancesOf('fx');
    const release = join(world.dir, 'release-restart');
    const call = alice.callTool({ name: 'fx__wait', arguments: { path: release } });
    await waitFor('the call in flight', async () => (await instancesOf('fx'))[0]?.inFlight === 1);

    let answered = false;
    const restart = world
      .calls()
      .restartServer({ server: 'fx', instance: '', caller: '' })
      .finally(() => (answered = true));
    await waitFor('the instance draining', async () => (await instancesOf('fx')).some((i) => i.id === old?.id && i.state === 'draining'));
    expect(answered).toBe(false);
    expect(pidsWithTag(world.tag)).toContain(old?.pid);
    writeFileSync(release, '');

    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
    const r = await restart;
    expect(r.pools).toMatchObject([{ stopped: [{ id: old?.id, pid: old?.pid, state: 'busy' }], started: [{ state: 'ready' }], error: '' }]);
    expect(r.pools[0]?.started[0]?.pid).not.toBe(old?.pid);
    expect(pidsWithTag(world.tag)).not.toContain(old?.pid);
    expect(existsSync(release)).toBe(true);
  });

  it('a call still running when the drain time is up ends with the process, as UNAVAILABLE; the restart goes on', async () => {
    const alice = await world.gateway('alice');
    const never = join(world.dir, 'never-released');
    const call = alice.callTool({ name: 'short__wait', arguments: { path: never } }).then(
      (r) => ({ result: r, error: undefined }),
      (e: Error) => ({ result: undefined, error: e.message }),
    );
    await waitFor('the call in flight', async () => (await instancesOf('short'))[0]?.inFlight === 1);
    const [old] = await instancesOf('short');
    const r = await ctl('restart', 'short');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(`\n  stopped ${old?.id} pid ${old?.pid} (busy)\n`);
    expect(await call).toMatchObject({ result: undefined, error: expect.stringMatching(/server short .*during the call/) });
    expect(await alice.callTool({ name: 'short__echo', arguments: { text: 'again' } })).toMatchObject({
      structuredContent: { text: 'again' },
    });
  });

  it('a replacement that fails to start: exit 1, with the start’s error', async () => {
    const carol = await world.gateway('carol');
    expect(await carol.callTool({ name: 'flaky__echo', arguments: { text: 'up' } })).toMatchObject({ structuredContent: { text: 'up' } });
    const [old] = await instancesOf('flaky', 'flaky');
    const flag = join(tmpdir(), `mcpd-restart-flag-${world.tag}`);
    writeFileSync(flag, '');
    const r = await ctl('restart', 'flaky').finally(() => rmSync(flag, { force: true }));
    expect(r.code, r.err).toBe(1);
    expect(r.out).toContain(`\n  stopped ${old?.id} pid ${old?.pid} (ready)\n`);
    expect(r.out).toMatch(/\n {2}no replacement runs: .*\S.*\n$/);
    expect(pidsWithTag(world.tag)).not.toContain(old?.pid);
  });
});
