import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, statSync } from 'node:fs';
import { TestWorld } from '../support/core-process.js';
import { MCPD } from '../support/paths.js';
import { cmdline, pidsWithTag, waitFor } from '../support/procs.js';
import { echoServer, profile } from '../support/profiles.js';

/** A core started the way several autostarting gateways start one at the same moment. */
function racer(world: TestWorld): { proc: ChildProcess; log: () => string } {
  const chunks: string[] = [];
  const proc = spawn(process.execPath, [MCPD, '--config', world.configDir, '--socket', world.socket], {
    env: world.env(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (d: string) => chunks.push(d));
  return { proc, log: () => chunks.join('') };
}

describe('several cores started at once on one socket', () => {
  const world = new TestWorld({ 'profiles/default.yaml': profile(echoServer('fx')), 'callers.yaml': 'callers: {}\n' });
  afterAll(async () => world.cleanup());

  it('exactly one serves (over a stale socket a killed core left), the others refuse and exit', async () => {
    const killed = await world.startCore();
    killed.kill('SIGKILL');
    await waitFor('the killed core to be gone', () => !pidsWithTag(world.tag).includes(killed.pid ?? -1));
    // The killed core's socket file is still there: every starter sees a stale socket to replace.
    expect(lstatSync(world.socket).isSocket()).toBe(true);

    const racers = [0, 1, 2, 3, 4, 5].map(() => racer(world));
    const started = (r: (typeof racers)[number]) => r.log().includes('"event":"core started"');
    // Each racer either serves or has exited: the outcome of the race, not a moment in it.
    await waitFor('every racing core to start or exit', () => racers.every((r) => started(r) || r.proc.exitCode !== null));
    const winners = racers.filter(started);
    const losers = racers.filter((r) => !started(r));
    expect(winners).toHaveLength(1);
    for (const l of losers) {
      expect(l.proc.exitCode).not.toBe(0);
      // Refused by the socket's start lock or by the store's lock, whichever a loser reached first; a loser
      // that reaches the store's lock after the winner recorded itself is told the winner's pid.
      expect(l.log()).toMatch(
        /another mcpd (is already serving .*control\.sock|is starting on .*(control\.sock|the store )|\(pid \d+\) already serves the store )/,
      );
    }
    // The winner is the core the socket reaches, and no other core is left running.
    expect((await world.calls().getInfo()).pid).toBe(winners[0]?.proc.pid);
    const cores = pidsWithTag(world.tag).filter((p) => cmdline(p).includes(MCPD));
    expect(cores).toEqual([winners[0]?.proc.pid]);
  });

  it('keeps the start lock name secret: its key is a private file, and a readable one is refused', async () => {
    const serving = () => pidsWithTag(world.tag).filter((p) => cmdline(p).includes(MCPD));
    for (const p of serving()) process.kill(p, 'SIGTERM');
    await waitFor('the serving core to stop', () => serving().length === 0);
    const key = `${world.socket}.start-key`;
    // The key the winner above created: only this user can read it, so nobody else can compute the lock name.
    expect(statSync(key).mode & 0o777).toBe(0o600);
    chmodSync(key, 0o644);
    const r = racer(world);
    await waitFor('the core to refuse the readable key', () => r.proc.exitCode !== null);
    expect(r.proc.exitCode).not.toBe(0);
    expect(r.log()).toContain(`${key} is not a private file of this user`);
    chmodSync(key, 0o600);
    await world.startCore();
    expect((await world.calls().getInfo()).pid).toBeGreaterThan(0);
  });
});
