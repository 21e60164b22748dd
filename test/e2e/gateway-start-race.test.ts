import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { TestWorld } from '../support/core-process.js';
import { MCPDMCP } from '../support/paths.js';
import { waitFor } from '../support/procs.js';

/**
 * Two gateways of one store spawned at the same moment with no core running each start one; one core
 * serves and the other gives way. Each gateway's log says which: never two "started" cores for one socket.
 */
const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'race', version: '1' } };

describe('gateways racing to start a core', () => {
  const world = new TestWorld({ 'profiles/default.yaml': 'servers: []\n', 'callers.yaml': 'callers: {}\n' });
  const gateways: ChildProcess[] = [];
  afterAll(async () => {
    for (const g of gateways) g.stdin?.end();
    await world.cleanup();
  });

  it('logs one core started and the other giving way', async () => {
    const logs = ['', ''];
    const answered = [false, false];
    for (const i of [0, 1]) {
      const g = spawn(process.execPath, [MCPDMCP, `racer${i}`, '--socket', world.socket, '--config', world.configDir], {
        env: world.env(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      // A gateway starts its core right after its first turn: the client's initialize.
      g.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT })}\n`);
      g.stdout?.setEncoding('utf8');
      g.stdout?.on('data', (d: string) => (answered[i] ||= d.includes('"id":1')));
      g.stderr?.setEncoding('utf8');
      g.stderr?.on('data', (d: string) => (logs[i] += d));
      gateways.push(g);
    }
    const starts = () => logs.map((l) => (l.match(/starting core pid \d+/g) ?? []).length).reduce((a, b) => a + b, 0);
    const gaveWay = () => logs.map((l) => (l.match(/gave way: another core of this store/g) ?? []).length).reduce((a, b) => a + b, 0);
    await waitFor('both gateways to answer initialize', () => answered.every(Boolean));
    // Each gateway decided in the turn after its answer; a core serves once the status call answers.
    await waitFor('a core to serve the store', () =>
      world
        .calls()
        .status()
        .then(
          () => true,
          () => false,
        ),
    );
    // Both started one (the race), or the second already found the first's socket: one core is left reported.
    await waitFor('the reported cores to settle on one', () => starts() >= 1 && starts() - gaveWay() === 1);
    expect(logs.join('')).not.toMatch(/started core pid/);
  });
});
